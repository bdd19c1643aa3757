import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { EntityManager } from 'typeorm';
import { JwtKeyRing } from '../../platform/keys/jwt-key-ring';
import { signEdDsa } from '../../platform/keys/jws';
import { sha256Hex } from '../auth/credentials/sha256';
import type { IssuedToken, TokenRevokeReason } from './issued-token.entity';
import type { LoginSession } from './login-session.entity';
import { SessionStore } from './session-store';
import { TOKEN_LIFETIME_DAYS, tokenExpiresAt } from './token-lifetime';

export interface IssuedPair {
  jwt: string;
  refreshToken: string;
  token: IssuedToken;
}

/**
 * Signs a JWT (EdDSA, or HS256 under JWT_SECRET alone: see JwtKeyRing) for a session's working company and records it (as digests) with a fresh refresh token, inside
 * the caller's transaction so a token is never handed out without its record.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly jwt: JwtService,
    private readonly keys: JwtKeyRing,
    private readonly store: SessionStore,
  ) {}

  async issue(
    manager: EntityManager,
    session: Pick<LoginSession, 'id' | 'employeeId' | 'createdAt'>,
    companyId: number,
    now: Date,
    /** The company's `session_days` (docs/contract.md "Company policies and roles"), read by the caller. */
    sessionDays: number = TOKEN_LIFETIME_DAYS,
  ): Promise<IssuedPair> {
    const id = randomUUID();
    const expiresAt = tokenExpiresAt(now, session.createdAt, sessionDays);
    const claims = {
      sub: String(session.employeeId),
      cid: companyId,
      sid: session.id,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(expiresAt.getTime() / 1000),
    };
    const key = this.keys.signing;
    const jwt =
      key.alg === 'EdDSA'
        ? signEdDsa({ ...claims, jti: id }, key.kid, key.privateKey)
        : this.jwt.sign(claims, { secret: key.secret, algorithm: 'HS256', keyid: key.kid, jwtid: id });
    const refreshToken = randomBytes(32).toString('base64url');
    const token: IssuedToken = {
      id,
      sessionId: session.id,
      companyId,
      tokenHash: sha256Hex(jwt),
      refreshHash: sha256Hex(refreshToken),
      issuedAt: now,
      expiresAt,
      revokedAt: null,
      revokeReason: null,
      refreshUsedAt: null,
    };
    await this.store.insertToken(manager, token);
    return { jwt, refreshToken, token };
  }

  /** Blacklists one token or every token of a session; returns how many were still active. */
  revoke(
    manager: EntityManager,
    where: { id: string } | { sessionId: string },
    reason: TokenRevokeReason,
    now: Date,
  ): Promise<number> {
    return this.store.revokeTokens(manager, where, reason, now);
  }
}
