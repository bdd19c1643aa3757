import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock/clock';
import type { Grant } from '../../membership/permission';
import { intersectGrants } from '../../membership/permission';
import { JwtKeyRing } from '../tokens/jwt-key-ring';
import { type CachedCredential, CredentialCache } from './credential-cache';
import type { CredentialVerdict, Principal } from './principal';
import { type RevocationNotice, RevocationBus } from './revocation-bus';
import { UsageRecorder } from './usage-recorder';

/** The query parameter that used to carry credentials; refused since October 2026. */
export const QUERY_CREDENTIAL_PARAM = '__jwtAuthorization';

/** How long a looked-up credential is trusted without asking the database again, should a notice be lost. */
const CACHE_FRESHNESS_MS = 30_000;
/**
 * Headers longer than this are never remembered: the cache is keyed by the header itself, and a flood of long
 * made-up values must not fill memory. Issued JWTs are ~300 characters, API keys ~80.
 */
const MAX_CACHED_HEADER_LENGTH = 1024;
/** A refusal decided without the database (bad signature, malformed key) is cheaper to decide again than to keep. */
const NOT_KEPT: CachedCredential = { status: 'not_found', freshUntilMs: 0 };

const VERDICT = Symbol('credentialVerdict');
type RequestWithMemo = FastifyRequest & { [VERDICT]?: Promise<CredentialVerdict> };

const API_KEY_ID = /^[A-Za-z0-9_-]{8,40}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Who a credential belongs to, read in the same query as the credential itself. */
interface OwnerColumns {
  employee_id: number;
  employee_email: string;
  employee_name: string;
  company_id: number;
  company_name: string;
}

interface TokenRow extends OwnerColumns {
  id: string;
  session_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  ended_at: Date | null;
  permissions: Grant[] | null;
}

interface ApiKeyRow extends OwnerColumns {
  id: string;
  secret_hash: string;
  permissions: Grant[];
  revoked_at: Date | null;
  owner_permissions: Grant[] | null;
}

const OWNER_COLUMNS = `e.email AS employee_email, e.name AS employee_name, c.name AS company_name`;

function ownerOf(row: OwnerColumns): Pick<Principal, 'employee' | 'company'> {
  return {
    employee: { id: row.employee_id, email: row.employee_email, name: row.employee_name },
    company: { id: row.company_id, name: row.company_name },
  };
}

interface JwtClaims {
  sub?: unknown;
  cid?: unknown;
  sid?: unknown;
  jti?: unknown;
}

/**
 * Decides what a request's credential is worth, in the order of contract.md: the query parameter, a missing
 * header, a Bearer prefix, then an API key (`key:secret`) or a JWT. A credential already seen is answered from
 * memory; only a new one costs a signature check and one database query.
 */
@Injectable()
export class CredentialService {
  private readonly cache = new CredentialCache();

  constructor(
    private readonly jwt: JwtService,
    private readonly keys: JwtKeyRing,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
    private readonly usage: UsageRecorder,
    bus: RevocationBus,
  ) {
    bus.onNotice((notice) => this.forget(notice));
  }

  /** Credentials remembered right now; for metrics. */
  get cachedCount(): number {
    return this.cache.size;
  }

  /** The verdict on this request's credential, worked out once however many guards ask. */
  resolve(request: FastifyRequest): Promise<CredentialVerdict> {
    const memo = request as RequestWithMemo;
    return (memo[VERDICT] ??= this.decide(request));
  }

  static hasQueryCredential(request: FastifyRequest): boolean {
    const query = request.query as Record<string, unknown> | undefined;
    return query !== undefined && query !== null && Object.hasOwn(query, QUERY_CREDENTIAL_PARAM);
  }

  private async decide(request: FastifyRequest): Promise<CredentialVerdict> {
    if (CredentialService.hasQueryCredential(request)) return { status: 'query_not_allowed' };
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') return { status: 'missing' };
    if (/^bearer\s/i.test(header)) return { status: 'not_found' };

    const nowMs = this.clock.nowMs();
    let entry = this.cache.get(header, nowMs);
    if (entry === undefined) {
      const hash = sha256Hex(header);
      entry = header.includes(':') ? await this.lookUpApiKey(header, hash, nowMs) : await this.lookUpJwt(header, hash, nowMs);
      if (entry.freshUntilMs > nowMs && header.length <= MAX_CACHED_HEADER_LENGTH) this.cache.set(header, entry);
    }
    if (entry.status !== 'valid') return { status: entry.status };
    if (entry.expiresAtMs <= nowMs) return { status: 'expired' };
    this.usage.touch(entry.principal, nowMs);
    return { status: 'valid', principal: entry.principal, tokenHash: entry.tokenHash };
  }

  private async lookUpJwt(token: string, hash: string, nowMs: number): Promise<CachedCredential> {
    const notFound: CachedCredential = { status: 'not_found', freshUntilMs: nowMs + CACHE_FRESHNESS_MS };
    const claims = this.verifySignature(token);
    if (!claims) return NOT_KEPT;

    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT t.id, t.session_id, t.company_id, t.expires_at, t.revoked_at, s.employee_id, s.ended_at,
              m.permissions, ${OWNER_COLUMNS}
         FROM issued_token t
         JOIN login_session s ON s.id = t.session_id
         JOIN employee e ON e.id = s.employee_id
         JOIN company c ON c.id = t.company_id
         LEFT JOIN membership m ON m.employee_id = s.employee_id AND m.company_id = t.company_id
        WHERE t.token_hash = $1`,
      [hash],
    );
    const row = rows[0];
    // The claims must describe the very row their digest found: a re-signed payload is not the issued token.
    if (
      !row ||
      claims.jti !== row.id ||
      claims.sid !== row.session_id ||
      claims.cid !== row.company_id ||
      claims.sub !== String(row.employee_id)
    ) {
      return notFound;
    }
    const freshUntilMs = nowMs + CACHE_FRESHNESS_MS;
    if (row.revoked_at || row.ended_at || !row.permissions) return { status: 'blacklisted', freshUntilMs };
    const principal: Principal = {
      kind: 'jwt',
      employeeId: row.employee_id,
      companyId: row.company_id,
      permissions: row.permissions,
      sessionId: row.session_id,
      credentialId: row.id,
      ...ownerOf(row),
    };
    return {
      status: 'valid',
      principal,
      expiresAtMs: new Date(row.expires_at).getTime(),
      freshUntilMs,
      tokenHash: hash.slice(0, 16),
    };
  }

  /** Signature, algorithm and key only; expiry is the service's own rule, judged with its clock. */
  private verifySignature(token: string): JwtClaims | null {
    const decoded = this.jwt.decode<{ header?: { alg?: unknown; kid?: unknown } } | null>(token, { complete: true });
    const secret = this.keys.secretFor(decoded?.header?.kid);
    if (!decoded || decoded.header?.alg !== 'HS256' || !secret) return null;
    try {
      return this.jwt.verify<JwtClaims & object>(token, { secret, algorithms: ['HS256'], ignoreExpiration: true });
    } catch {
      return null;
    }
  }

  private async lookUpApiKey(header: string, hash: string, nowMs: number): Promise<CachedCredential> {
    const freshUntilMs = nowMs + CACHE_FRESHNESS_MS;
    const separator = header.indexOf(':');
    const keyId = header.slice(0, separator);
    const secretDigest = Buffer.from(sha256Hex(header.slice(separator + 1)), 'hex');
    if (!API_KEY_ID.test(keyId)) return NOT_KEPT;

    const rows: ApiKeyRow[] = await this.dataSource.query(
      `SELECT k.id, k.secret_hash, k.employee_id, k.company_id, k.permissions, k.revoked_at,
              m.permissions AS owner_permissions, ${OWNER_COLUMNS}
         FROM api_key k
         JOIN employee e ON e.id = k.employee_id
         JOIN company c ON c.id = k.company_id
         LEFT JOIN membership m ON m.employee_id = k.employee_id AND m.company_id = k.company_id
        WHERE k.key_id = $1`,
      [keyId],
    );
    const row = rows[0];
    // Compare digests in constant time, against a stand-in when the key id is unknown, so timing says nothing.
    const stored = Buffer.from(row?.secret_hash ?? '0'.repeat(64), 'hex');
    if (!timingSafeEqual(stored, secretDigest) || !row) return { status: 'not_found', freshUntilMs };
    if (row.revoked_at || !row.owner_permissions) return { status: 'blacklisted', freshUntilMs };
    const principal: Principal = {
      kind: 'api_key',
      employeeId: row.employee_id,
      companyId: row.company_id,
      // Never more than the owner holds now, whatever the key was given when it was made.
      permissions: intersectGrants(row.permissions, row.owner_permissions),
      sessionId: null,
      credentialId: row.id,
      ...ownerOf(row),
    };
    return {
      status: 'valid',
      principal,
      expiresAtMs: Number.POSITIVE_INFINITY,
      freshUntilMs,
      tokenHash: hash.slice(0, 16),
    };
  }

  private forget(notice: RevocationNotice): void {
    switch (notice.type) {
      case 'session':
        this.cache.evictWhere((p) => p.sessionId === notice.sessionId);
        break;
      case 'token':
        this.cache.evictWhere((p) => p.kind === 'jwt' && p.credentialId === notice.tokenId);
        break;
      case 'api_key':
        this.cache.evictWhere((p) => p.kind === 'api_key' && p.credentialId === notice.keyId);
        break;
      case 'membership':
        this.cache.evictWhere((p) => p.employeeId === notice.employeeId && p.companyId === notice.companyId);
        break;
    }
  }

  /** Whether a string is shaped like the ids this service issues; cheap input screening for route params. */
  static isUuid(value: string): boolean {
    return UUID.test(value);
  }
}
