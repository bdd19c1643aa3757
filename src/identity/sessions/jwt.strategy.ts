import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { DataSource } from 'typeorm';
import { memberCard } from '../../accounts/membership/member-card';
import { normalizeGrants } from '../../access/permissions/permission';
import { passkeyCountColumn } from '../passkeys/passkey-sql';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { endIdleSession } from './idle-sessions';
import { LoginPolicy } from './login-policy';
import type { LoginMethod } from './login-session.entity';
import { JwtKeyRing } from '../../platform/keys/jwt-key-ring';
import { parseJws, verifyEdDsa } from '../../platform/keys/jws';
import type { Principal } from '../../access/rules/principal';
import {
  CredentialKind,
  type CredentialStrategy,
  type LookUpResult,
  NOT_KEPT,
  ownerOf,
} from '../auth/credentials/credential-strategy';

interface TokenRow {
  id: string;
  employee_id: number;
  company_id: number;
  employee_passkeys: number;
  session_id: string;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  ended_at: Date | null;
  last_used_at: Date;
  second_factor: boolean;
}

interface JwtClaims {
  sub?: unknown;
  cid?: unknown;
  sid?: unknown;
  jti?: unknown;
}

/**
 * The token and its session, with the owner's passkey count; who it acts as is the accounts area's card, read
 * next.
 */
const LOOK_UP = `SELECT t.id, t.session_id, t.company_id, t.issued_at, t.expires_at, t.revoked_at, s.employee_id, s.ended_at,
       s.last_used_at, s.second_factor, ${passkeyCountColumn('s.employee_id')} AS employee_passkeys
  FROM issued_token t
  JOIN login_session s ON s.id = t.session_id
 WHERE t.token_hash = $1`;

/**
 * User Login Tokens: an EdDSA (or, before the move, HS256) signature of ours, then the issued-token row its digest names. It lives with the
 * sessions, which own the tables it reads, and is found at start by its mark (auth's CredentialStrategies).
 */
@CredentialKind('jwt')
@Injectable()
export class JwtStrategy implements CredentialStrategy {
  private lastVerified: { token: string; claims: JwtClaims } | undefined;

  constructor(
    private readonly jwt: JwtService,
    private readonly keys: JwtKeyRing,
    private readonly dataSource: DataSource,
    private readonly policy: LoginPolicy,
    private readonly audit: AuditRecorder,
  ) {}

  /** Anything that is not `key:secret` is taken for a JWT (docs/contract.md, Credentials). */
  accepts(header: string): boolean {
    return !header.includes(':');
  }

  vouchesFor(token: string): boolean {
    return this.verifySignature(token) !== null;
  }

  async lookUp(token: string, headerHash: string): Promise<LookUpResult> {
    const claims = this.verifySignature(token);
    if (!claims) return NOT_KEPT;

    const rows: TokenRow[] = await this.dataSource.query(LOOK_UP, [headerHash]);
    const row = rows[0];
    // The claims must describe the very row their digest found: a re-signed payload is not the issued token.
    if (
      !row ||
      claims.jti !== row.id ||
      claims.sid !== row.session_id ||
      claims.cid !== row.company_id ||
      claims.sub !== String(row.employee_id)
    ) {
      return { status: 'not_found', keep: true };
    }
    if (row.revoked_at || row.ended_at) return { status: 'blacklisted', keep: true };
    const card = await memberCard(this.dataSource.manager, row.employee_id, row.company_id);
    if (!card) return { status: 'not_found', keep: true };
    // A removed or suspended member's token is found and refused as blacklisted rather than unknown.
    if (!card.permissions) return { status: 'blacklisted', keep: true };
    const principal: Principal = {
      kind: 'jwt',
      employeeId: row.employee_id,
      companyId: row.company_id,
      permissions: normalizeGrants(card.permissions),
      roles: card.roles,
      sessionId: row.session_id,
      credentialId: row.id,
      ...ownerOf(card, row.employee_passkeys),
    };
    if (principal.policy?.idleMs != null) principal.lastUsedMs = new Date(row.last_used_at).getTime();
    if (principal.policy?.mfaRequired && !row.second_factor) principal.restricted = 'mfa_enrollment';
    return {
      status: 'valid',
      principal,
      issuedAtMs: new Date(row.issued_at).getTime(),
      expiresAtMs: new Date(row.expires_at).getTime(),
    };
  }

  /** A JWT's use is its session's: `credentialId` is the session id. */
  recordUse(sessionId: string, at: Date): Promise<unknown> {
    return this.dataSource.query('UPDATE login_session SET last_used_at = $1 WHERE id = $2', [at, sessionId]);
  }

  /** See {@link endIdleSession}. */
  endIdle(principal: Principal, client: ClientInfo, at: Date): Promise<boolean> {
    return endIdleSession(this.dataSource, this.audit, principal, client, at);
  }

  /**
   * The session's last proof of its person, where it counts: a session opened through a provider proves its
   * person only in the companies that trust that provider for the e-mail (the login policy), none elsewhere.
   */
  async provenAt(principal: Principal): Promise<Date | null> {
    const rows: Array<{ proven_at: Date; method: LoginMethod; sso_issuer: string | null }> =
      await this.dataSource.query(
        'SELECT proven_at, method, sso_issuer FROM login_session WHERE id = $1 AND ended_at IS NULL',
        [principal.sessionId],
      );
    const row = rows[0];
    if (!row) return null;
    const proof = { method: row.method, ssoIssuer: row.sso_issuer, email: principal.employee.email };
    if (!(await this.policy.sessionCounts(this.dataSource.manager, principal.companyId, proof))) return null;
    return new Date(row.proven_at);
  }

  /**
   * Signature, algorithm and key only; expiry is the service's own rule, judged with its clock. The `kid` picks
   * the key and the key fixes the algorithm: an Ed25519 key verifies EdDSA only, a secret HS256 only. Paid once
   * per token: the credential cache answers every later request without coming here.
   */
  private verifySignature(token: string): JwtClaims | null {
    // The rate limiter's vouchesFor and the look-up that follows check the same new token back to back.
    if (token === this.lastVerified?.token) return this.lastVerified.claims;
    const claims = this.checkSignature(token);
    if (claims) this.lastVerified = { token, claims };
    return claims;
  }

  private checkSignature(token: string): JwtClaims | null {
    const parts = parseJws(token);
    if (!parts) return null;
    const publicKey = this.keys.publicKeyFor(parts.header.kid);
    if (publicKey) {
      if (parts.header.alg !== 'EdDSA') return null;
      try {
        return verifyEdDsa(parts, publicKey) ? (parts.claims as JwtClaims) : null;
      } catch {
        return null;
      }
    }
    const secret = this.keys.secretFor(parts.header.kid);
    if (parts.header.alg !== 'HS256' || !secret) return null;
    try {
      return this.jwt.verify<JwtClaims & object>(token, { secret, algorithms: ['HS256'], ignoreExpiration: true });
    } catch {
      return null;
    }
  }
}
