import type { EntityManager } from 'typeorm';
import { withEmails } from '../../accounts/employee/employee-records';
import type { SessionEndReason } from './login-session.entity';

/**
 * Ends every live session of an employee (all companies) except `keep`, inside the caller's transaction, and
 * blacklists their tokens. Answers the ended session ids: the caller announces each on the revocation bus after
 * the commit, so every instance refuses their tokens from the next request on.
 */
export async function endSessionsOf(
  manager: EntityManager,
  employeeId: number,
  now: Date,
  reason: SessionEndReason,
  keep: string | null = null,
): Promise<string[]> {
  const ended = await manager.query<Array<{ id: string }>>(
    `WITH ended AS (
       UPDATE login_session SET ended_at = $2, end_reason = $3
        WHERE employee_id = $1 AND ended_at IS NULL AND ($4::uuid IS NULL OR id <> $4::uuid) RETURNING id)
     SELECT id FROM ended`,
    [employeeId, now, reason, keep],
  );
  if (ended.length > 0) {
    await manager.query(
      `UPDATE issued_token SET revoked_at = $2, revoke_reason = $3
        WHERE revoked_at IS NULL AND session_id = ANY($1::uuid[])`,
      [ended.map((session) => session.id), now, reason],
    );
  }
  return ended.map((session) => session.id);
}

/**
 * What an employee held in one company ends with their membership there, inside the caller's transaction:
 * every token issued for that company is blacklisted (sessions that switched away keep their other tokens),
 * and the sessions working in it end. Sessions working in another company go on.
 */
export async function endSessionsInCompany(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  now: Date,
): Promise<void> {
  await manager.query(
    `UPDATE issued_token SET revoked_at = $3, revoke_reason = 'membership_removed'
      WHERE company_id = $2 AND revoked_at IS NULL
        AND session_id IN (SELECT id FROM login_session WHERE employee_id = $1)`,
    [employeeId, companyId, now],
  );
  await manager.query(
    `UPDATE login_session SET ended_at = $3, end_reason = 'membership_removed'
      WHERE employee_id = $1 AND company_id = $2 AND ended_at IS NULL`,
    [employeeId, companyId, now],
  );
}

/**
 * Ends the live sessions working in `companyId` that were not opened through the provider `issuer` (the company
 * has just required its provider), except `keep` (the caller's own, which works on until it expires but is not
 * renewed), inside the caller's transaction, and blacklists their tokens. Answers the ended sessions: the caller
 * records their events and announces each on the revocation bus after the commit.
 */
export async function endSessionsNotThrough(
  manager: EntityManager,
  companyId: number,
  issuer: string,
  keep: string | null,
  now: Date,
): Promise<Array<{ id: string; email: string }>> {
  const ended = await manager.query<Array<{ id: string; employee_id: number }>>(
    `WITH ended AS (
       UPDATE login_session SET ended_at = $3, end_reason = 'sso_enforced'
        WHERE company_id = $1 AND ended_at IS NULL AND ($4::uuid IS NULL OR id <> $4::uuid)
          AND NOT (method = 'sso' AND sso_issuer IS NOT DISTINCT FROM $2)
        RETURNING id, employee_id)
     SELECT id, employee_id FROM ended`,
    [companyId, issuer, now, keep],
  );
  if (ended.length > 0) {
    await manager.query(
      `UPDATE issued_token SET revoked_at = $2, revoke_reason = 'sso_enforced'
        WHERE revoked_at IS NULL AND session_id = ANY($1::uuid[])`,
      [ended.map((session) => session.id), now],
    );
  }
  return (await withEmails(manager, ended)).map(({ id, email }) => ({ id, email }));
}
