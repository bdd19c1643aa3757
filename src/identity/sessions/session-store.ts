import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { companyRef } from '../../accounts/company/company-records';
import { policyOf, type PolicyView } from '../../accounts/company-policy/company-policy-records';
import { withEmails } from '../../accounts/employee/employee-records';
import { findMember, type Member } from '../../accounts/membership/membership-records';
import { IssuedToken, type TokenRevokeReason } from './issued-token.entity';
import { LoginSession, type SessionEndReason } from './login-session.entity';

/** The session a call to end one actually ended, with the e-mail its security event names. */
export interface EndedSession {
  id: string;
  companyId: number;
  employeeId: number;
  email: string;
}

/**
 * What the session services read and write, as one port: SessionService, SessionTokens and LoginService hold
 * the rules (order of checks, time, who is told), this holds the statements. Methods taking an `EntityManager`
 * run inside the caller's transaction ({@link transaction}). The services' unit specs fake it; everything
 * else, the end-to-end suites included, uses {@link TypeOrmSessionStore} on a real database.
 */
export abstract class SessionStore {
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  abstract tokenByRefreshHash(refreshHash: string): Promise<IssuedToken | null>;
  abstract session(id: string): Promise<LoginSession | null>;
  abstract ownSession(id: string, employeeId: number): Promise<LoginSession | null>;
  abstract liveSessionsSince(employeeId: number, since: Date): Promise<LoginSession[]>;
  /** Spends a refresh token with one conditional UPDATE: false when it was used or revoked meanwhile. */
  abstract spendRefresh(manager: EntityManager, tokenId: string, now: Date): Promise<boolean>;
  /** Ends a live session; null when it had ended already (or never existed). */
  abstract endSession(
    manager: EntityManager,
    sessionId: string,
    now: Date,
    reason: SessionEndReason,
  ): Promise<EndedSession | null>;
  /** The live session, row-locked until the transaction ends; null when it has ended. */
  abstract lockLiveSession(manager: EntityManager, sessionId: string): Promise<LoginSession | null>;
  abstract moveSession(manager: EntityManager, sessionId: string, companyId: number, now: Date): Promise<void>;
  abstract insertSession(manager: EntityManager, session: LoginSession): Promise<void>;
  /** The membership check of a token being issued, key-locking the membership (membership/'s findMember). */
  abstract member(manager: EntityManager, employeeId: number, companyId: number): Promise<Member | null>;
  abstract company(manager: EntityManager, companyId: number): Promise<{ id: number; name: string }>;
  /** The company's policy (docs/contract.md "Company policies and roles"; the defaults when it set none). */
  abstract policy(manager: EntityManager, companyId: number): Promise<PolicyView>;
  abstract insertToken(manager: EntityManager, token: IssuedToken): Promise<void>;
  /** Blacklists one token or every token of a session; answers how many were still active. */
  abstract revokeTokens(
    manager: EntityManager,
    where: { id: string } | { sessionId: string },
    reason: TokenRevokeReason,
    now: Date,
  ): Promise<number>;
}

@Injectable()
export class TypeOrmSessionStore extends SessionStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  tokenByRefreshHash(refreshHash: string): Promise<IssuedToken | null> {
    return this.dataSource.getRepository(IssuedToken).findOneBy({ refreshHash });
  }

  session(id: string): Promise<LoginSession | null> {
    return this.dataSource.getRepository(LoginSession).findOneBy({ id });
  }

  ownSession(id: string, employeeId: number): Promise<LoginSession | null> {
    return this.dataSource.getRepository(LoginSession).findOneBy({ id, employeeId });
  }

  liveSessionsSince(employeeId: number, since: Date): Promise<LoginSession[]> {
    return this.dataSource
      .getRepository(LoginSession)
      .createQueryBuilder('s')
      .where('s.employee_id = :employeeId AND s.ended_at IS NULL AND s.created_at > :since', { employeeId, since })
      .orderBy('s.created_at', 'DESC')
      .getMany();
  }

  async spendRefresh(manager: EntityManager, tokenId: string, now: Date): Promise<boolean> {
    const spent = await manager
      .createQueryBuilder()
      .update(IssuedToken)
      .set({ refreshUsedAt: now, revokedAt: now, revokeReason: 'refresh' })
      .where('id = :id AND refresh_used_at IS NULL AND revoked_at IS NULL', { id: tokenId })
      .execute();
    return spent.affected === 1;
  }

  async endSession(
    manager: EntityManager,
    sessionId: string,
    now: Date,
    reason: SessionEndReason,
  ): Promise<EndedSession | null> {
    const ended = await withEmails(
      manager,
      await manager.query<Array<{ company_id: number; employee_id: number }>>(
        `WITH ended AS (
           UPDATE login_session SET ended_at = $2, end_reason = $3
            WHERE id = $1 AND ended_at IS NULL RETURNING company_id, employee_id)
         SELECT company_id, employee_id FROM ended`,
        [sessionId, now, reason],
      ),
    );
    if (ended.length !== 1) return null;
    const [{ company_id: companyId, employee_id: employeeId, email }] = ended;
    return { id: sessionId, companyId, employeeId, email };
  }

  lockLiveSession(manager: EntityManager, sessionId: string): Promise<LoginSession | null> {
    return manager.findOne(LoginSession, {
      where: { id: sessionId, endedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async moveSession(manager: EntityManager, sessionId: string, companyId: number, now: Date): Promise<void> {
    await manager.update(LoginSession, { id: sessionId }, { companyId, lastUsedAt: now });
  }

  async insertSession(manager: EntityManager, session: LoginSession): Promise<void> {
    await manager.insert(LoginSession, session);
  }

  member(manager: EntityManager, employeeId: number, companyId: number): Promise<Member | null> {
    return findMember(manager, employeeId, companyId);
  }

  company(manager: EntityManager, companyId: number): Promise<{ id: number; name: string }> {
    return companyRef(manager, companyId);
  }

  policy(manager: EntityManager, companyId: number): Promise<PolicyView> {
    return policyOf(manager, companyId);
  }

  async insertToken(manager: EntityManager, token: IssuedToken): Promise<void> {
    await manager.insert(IssuedToken, token);
  }

  async revokeTokens(
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
