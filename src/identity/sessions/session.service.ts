import { HttpStatus, Injectable } from '@nestjs/common';
import { ANONYMOUS, OPERATOR, requestContext } from '../../audit/recorder/audit-actor';
import type { AuditEventInput } from '../../audit/recorder/audit-event';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { Principal } from '../../access/rules/principal';
import { sha256Hex } from '../auth/credentials/sha256';
import { SESSION_MAX_AGE_MS } from './token-lifetime';
import type { LoginResult } from './login-result';
import type { LoginMethod, SessionEndReason } from './login-session.entity';
import { type EndedSession, SessionStore } from './session-store';
import { SessionTokens } from './session-tokens.service';
import { TokenIssuer } from './token-issuer.service';

/** A used refresh token seen again after this long is taken as stolen: the whole session ends. */
export const REFRESH_REUSE_GRACE_MS = 10_000;

export interface SessionView {
  id: string;
  created_at: string;
  last_used_at: string;
  method: LoginMethod;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

const sessionSubject = (ended: EndedSession) => ({ kind: 'session' as const, id: ended.id, email: ended.email });

const blacklisted = (message: string) => new ApiError(ErrorCode.JwtBlacklisted, HttpStatus.BAD_REQUEST, message);
const refreshInvalid = () =>
  new ApiError(ErrorCode.RefreshTokenInvalid, HttpStatus.UNAUTHORIZED, 'The refresh token is not valid.');

/** What happens to a login session after login: refresh rotation, logout, listing and revocation. */
@Injectable()
export class SessionService {
  constructor(
    private readonly store: SessionStore,
    private readonly issuer: TokenIssuer,
    private readonly tokens: SessionTokens,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  /**
   * Rotates a refresh token: checks in docs/contract.md's order (unknown or used, session ended, past 30 days,
   * token expired), then spends it with one conditional UPDATE so two concurrent refreshes cannot both win.
   */
  async refresh(refreshToken: string, client: ClientInfo): Promise<LoginResult> {
    const now = this.clock.now();
    const token = await this.store.tokenByRefreshHash(sha256Hex(refreshToken));
    if (!token) throw refreshInvalid();
    if (token.refreshUsedAt) {
      if (now.getTime() - token.refreshUsedAt.getTime() > REFRESH_REUSE_GRACE_MS) {
        await this.end(token.sessionId, 'refresh_reuse', (ended) => ({
          type: 'session.refresh_reuse',
          companyId: ended.companyId,
          actor: ANONYMOUS,
          subject: sessionSubject(ended),
          sessionId: ended.id,
          ip: client.ip,
          userAgent: client.userAgent,
        }));
      }
      throw refreshInvalid();
    }
    const session = await this.store.session(token.sessionId);
    // The foreign key keeps a token's session; its absence is a broken database, not a bad request.
    if (!session) throw new Error(`session ${token.sessionId} of token ${token.id} not found`);
    if (session.endedAt || token.revokedAt) throw blacklisted('The session of this refresh token has ended.');
    if (now.getTime() - session.createdAt.getTime() > SESSION_MAX_AGE_MS) {
      throw new ApiError(
        ErrorCode.SessionMaxAge,
        HttpStatus.BAD_REQUEST,
        'The session is more than 30 days old; log in again.',
      );
    }
    if (token.expiresAt.getTime() <= now.getTime()) {
      throw new ApiError(ErrorCode.JwtExpired, HttpStatus.BAD_REQUEST, 'The token of this refresh token has expired.');
    }

    const result = await this.store.transaction(async (manager) => {
      if (!(await this.store.spendRefresh(manager, token.id, now))) throw refreshInvalid();
      const renewed = await this.tokens.renew(manager, session, now, client);
      await this.audit.record(manager, {
        type: 'token.refreshed',
        companyId: session.companyId,
        actor: { kind: 'employee', id: session.employeeId, email: renewed.employee.email },
        sessionId: session.id,
        ip: client.ip,
        userAgent: client.userAgent,
      });
      return renewed;
    });
    await this.bus.publish({ type: 'token', tokenId: token.id });
    return result;
  }

  async logout(principal: Principal, client: ClientInfo): Promise<void> {
    await this.end(principal.sessionId!, 'logout', (ended) => ({
      type: 'session.logged_out',
      companyId: ended.companyId,
      ...requestContext(principal, client),
    }));
  }

  async list(principal: Principal): Promise<SessionView[]> {
    const since = new Date(this.clock.nowMs() - SESSION_MAX_AGE_MS);
    const sessions = await this.store.liveSessionsSince(principal.employeeId, since);
    return sessions.map((session) => ({
      id: session.id,
      created_at: session.createdAt.toISOString(),
      last_used_at: session.lastUsedAt.toISOString(),
      method: session.method,
      ip: session.ip,
      user_agent: session.userAgent,
      current: session.id === principal.sessionId,
    }));
  }

  /** Ends one of the caller's own sessions; another employee's session is "not found". */
  async revokeOwn(principal: Principal, sessionId: string, client: ClientInfo): Promise<void> {
    const session = await this.store.ownSession(sessionId, principal.employeeId);
    if (!session) throw ApiError.notFound('No such session.');
    // Recorded in the company the session worked in, which may not be the caller's current one.
    await this.end(session.id, 'revoked', (ended) => ({
      type: 'session.revoked',
      companyId: ended.companyId,
      ...requestContext(principal, client),
      subject: sessionSubject(ended),
    }));
  }

  /** Operator revocation (CLI); false when no such session exists. */
  async revokeById(sessionId: string): Promise<boolean> {
    const exists = (await this.store.session(sessionId)) !== null;
    if (exists) {
      await this.end(sessionId, 'admin_revoked', (ended) => ({
        type: 'session.revoked',
        companyId: ended.companyId,
        actor: OPERATOR,
        subject: sessionSubject(ended),
      }));
    }
    return exists;
  }

  /**
   * Ends a session and blacklists all its tokens, then tells every instance. Ending twice changes nothing and
   * records nothing; the first time records the event `describe` makes, in the same transaction.
   */
  private async end(
    sessionId: string,
    reason: SessionEndReason,
    describe: (ended: EndedSession) => AuditEventInput,
  ): Promise<void> {
    const now = this.clock.now();
    await this.store.transaction(async (manager) => {
      const ended = await this.store.endSession(manager, sessionId, now, reason);
      await this.issuer.revoke(manager, { sessionId }, 'session_revoked', now);
      if (ended) await this.audit.record(manager, describe(ended));
    });
    await this.bus.publish({ type: 'session', sessionId });
  }
}
