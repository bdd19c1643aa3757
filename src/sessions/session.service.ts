import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ANONYMOUS, OPERATOR, requestContext } from '../audit/audit-actor';
import type { AuditEventInput } from '../audit/audit-event';
import { AuditRecorder } from '../audit/audit-recorder.service';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { ClientInfo } from '../common/http/client-info';
import { employeeJoin } from '../employee/employee-sql';
import { RevocationBus } from '../revocation/revocation-bus';
import type { Principal } from '../auth/credentials/principal';
import { sha256Hex } from '../auth/credentials/sha256';
import { SESSION_MAX_AGE_MS } from './token-lifetime';
import { IssuedToken } from './issued-token.entity';
import type { LoginResult } from './login-result';
import { LoginSession, type SessionEndReason } from './login-session.entity';
import { SessionTokens } from './session-tokens.service';
import { TokenIssuer } from './token-issuer.service';

/** A used refresh token seen again after this long is taken as stolen: the whole session ends. */
export const REFRESH_REUSE_GRACE_MS = 10_000;

export interface SessionView {
  id: string;
  created_at: string;
  last_used_at: string;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

/** The session a call to `end` actually ended, for its security event. */
interface EndedSession {
  id: string;
  companyId: number;
  employeeId: number;
  email: string;
}

const sessionSubject = (ended: EndedSession) => ({ kind: 'session' as const, id: ended.id, email: ended.email });

const blacklisted = (message: string) => new ApiError(ErrorCode.JwtBlacklisted, HttpStatus.BAD_REQUEST, message);
const refreshInvalid = () =>
  new ApiError(ErrorCode.RefreshTokenInvalid, HttpStatus.UNAUTHORIZED, 'The refresh token is not valid.');

/** What happens to a login session after login: refresh rotation, logout, listing and revocation. */
@Injectable()
export class SessionService {
  constructor(
    private readonly dataSource: DataSource,
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
    const token = await this.dataSource.getRepository(IssuedToken).findOneBy({ refreshHash: sha256Hex(refreshToken) });
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
    const session = await this.dataSource.getRepository(LoginSession).findOneByOrFail({ id: token.sessionId });
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

    const result = await this.dataSource.transaction(async (manager) => {
      const spent = await manager
        .createQueryBuilder()
        .update(IssuedToken)
        .set({ refreshUsedAt: now, revokedAt: now, revokeReason: 'refresh' })
        .where('id = :id AND refresh_used_at IS NULL AND revoked_at IS NULL', { id: token.id })
        .execute();
      if (spent.affected !== 1) throw refreshInvalid();
      const renewed = await this.tokens.renew(manager, session, now);
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
    const sessions = await this.dataSource
      .getRepository(LoginSession)
      .createQueryBuilder('s')
      .where('s.employee_id = :employeeId AND s.ended_at IS NULL AND s.created_at > :since', {
        employeeId: principal.employeeId,
        since,
      })
      .orderBy('s.created_at', 'DESC')
      .getMany();
    return sessions.map((session) => ({
      id: session.id,
      created_at: session.createdAt.toISOString(),
      last_used_at: session.lastUsedAt.toISOString(),
      ip: session.ip,
      user_agent: session.userAgent,
      current: session.id === principal.sessionId,
    }));
  }

  /** Ends one of the caller's own sessions; another employee's session is "not found". */
  async revokeOwn(principal: Principal, sessionId: string, client: ClientInfo): Promise<void> {
    const session = await this.dataSource
      .getRepository(LoginSession)
      .findOneBy({ id: sessionId, employeeId: principal.employeeId });
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
    const exists = await this.dataSource.getRepository(LoginSession).existsBy({ id: sessionId });
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
    await this.dataSource.transaction(async (manager) => {
      const ended: Array<{ company_id: number; employee_id: number; email: string }> = await manager.query(
        `WITH ended AS (
           UPDATE login_session SET ended_at = $2, end_reason = $3
            WHERE id = $1 AND ended_at IS NULL RETURNING company_id, employee_id)
         SELECT ended.company_id, ended.employee_id, e.email
           FROM ended ${employeeJoin('e', 'ended.employee_id')}`,
        [sessionId, now, reason],
      );
      await this.issuer.revoke(manager, { sessionId }, 'session_revoked', now);
      if (ended.length === 1) {
        const [{ company_id: companyId, employee_id: employeeId, email }] = ended;
        await this.audit.record(manager, describe({ id: sessionId, companyId, employeeId, email }));
      }
    });
    await this.bus.publish({ type: 'session', sessionId });
  }
}
