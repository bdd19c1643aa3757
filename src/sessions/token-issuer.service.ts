import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { EntityManager } from 'typeorm';
import { sha256Hex } from '../auth/credentials/sha256';
import { JwtKeyRing } from '../auth/credentials/jwt-key-ring';
import { tokenExpiresAt } from './token-lifetime';
import { IssuedToken, type TokenRevokeReason } from './issued-token.entity';
import type { LoginSession } from './login-session.entity';

export interface IssuedPair {
  jwt: string;
  refreshToken: string;
  token: IssuedToken;
}

/**
 * Signs a JWT for a session's working company and records it (as digests) with a fresh refresh token, inside
 * the caller's transaction so a token is never handed out without its record.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly jwt: JwtService,
    private readonly keys: JwtKeyRing,
  ) {}

  async issue(manager: EntityManager, session: LoginSession, companyId: number, now: Date): Promise<IssuedPair> {
    const id = randomUUID();
    const expiresAt = tokenExpiresAt(now, session.createdAt);
    const jwt = this.jwt.sign(
      {
        sub: String(session.employeeId),
        cid: companyId,
        sid: session.id,
        iat: Math.floor(now.getTime() / 1000),
        exp: Math.floor(expiresAt.getTime() / 1000),
      },
      { secret: this.keys.signing.secret, algorithm: 'HS256', keyid: this.keys.signing.kid, jwtid: id },
    );
    const refreshToken = randomBytes(32).toString('base64url');
    const token = manager.create(IssuedToken, {
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
    });
    await manager.insert(IssuedToken, token);
    return { jwt, refreshToken, token };
  }

  /** Blacklists one token or every token of a session; returns how many were still active. */
  async revoke(
    manager: EntityManager,
    where: { id: string } | { sessionId: string },
    reason: TokenRevokeReason,
    now: Date,
  ): Promise<number> {
    const column = 'id' in where ? 'id' : 'session_id';
    const result = await manager
      .createQueryBuilder()
      .update(IssuedToken)
      .set({ revokedAt: now, revokeReason: reason })
      .where(`${column} = :value AND revoked_at IS NULL`, { value: 'id' in where ? where.id : where.sessionId })
      .execute();
    return result.affected ?? 0;
  }
}
