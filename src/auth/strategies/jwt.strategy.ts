import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { DataSource } from 'typeorm';
import type { Grant } from '../../permissions/permission';
import { JwtKeyRing } from '../tokens/jwt-key-ring';
import type { Principal } from '../credentials/principal';
import {
  type CredentialStrategy,
  type LookUpResult,
  NOT_KEPT,
  OWNER_COLUMNS,
  type OwnerColumns,
  ownerOf,
} from '../credentials/credential-strategy';

interface TokenRow extends OwnerColumns {
  id: string;
  session_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  ended_at: Date | null;
  permissions: Grant[] | null;
}

interface JwtClaims {
  sub?: unknown;
  cid?: unknown;
  sid?: unknown;
  jti?: unknown;
}

/** User Login Tokens: an HS256 signature of ours, then the issued-token row its digest names. */
@Injectable()
export class JwtStrategy implements CredentialStrategy {
  constructor(
    private readonly jwt: JwtService,
    private readonly keys: JwtKeyRing,
    private readonly dataSource: DataSource,
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

    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT t.id, t.session_id, t.company_id, t.expires_at, t.revoked_at, s.employee_id, s.ended_at,
              m.permissions, ${OWNER_COLUMNS}
         FROM issued_token t
         JOIN login_session s ON s.id = t.session_id
         JOIN employee e ON e.id = s.employee_id
         JOIN company c ON c.id = t.company_id
         LEFT JOIN membership m ON m.employee_id = s.employee_id AND m.company_id = t.company_id
        WHERE t.token_hash = $1`,
      [headerHash],
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
      return { status: 'not_found', keep: true };
    }
    if (row.revoked_at || row.ended_at || !row.permissions) return { status: 'blacklisted', keep: true };
    const principal: Principal = {
      kind: 'jwt',
      employeeId: row.employee_id,
      companyId: row.company_id,
      permissions: row.permissions,
      sessionId: row.session_id,
      credentialId: row.id,
      ...ownerOf(row),
    };
    return { status: 'valid', principal, expiresAtMs: new Date(row.expires_at).getTime() };
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
}
