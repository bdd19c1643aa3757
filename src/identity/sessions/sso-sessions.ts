import type { EntityManager } from 'typeorm';
import { withEmails } from '../../accounts/employee/employee-records';

/**
 * What src/identity/sso/ reads and ends in the login_session table, inside the caller's transaction: the sessions a
 * provider's session created (OpenID Connect Back-Channel Logout names them by `sid`, or by `sub` for all).
 */

export interface ProviderSessionKey {
  issuer: string;
  sid?: string;
  sub?: string;
}

export interface EndedProviderSession {
  id: string;
  companyId: number;
  employeeId: number;
  email: string;
}

/** Ends the live sessions opened through `issuer` with that `sid` (or that `sub`) and blacklists their tokens. */
export async function endProviderSessions(
  manager: EntityManager,
  key: ProviderSessionKey,
  now: Date,
): Promise<EndedProviderSession[]> {
  const ended = await manager.query<Array<{ id: string; company_id: number; employee_id: number }>>(
    `WITH ended AS (
       UPDATE login_session SET ended_at = $4, end_reason = 'backchannel_logout'
        WHERE sso_issuer = $1 AND ended_at IS NULL
          AND ($2::varchar IS NULL OR sso_sid = $2) AND ($3::varchar IS NULL OR sso_sub = $3)
        RETURNING id, company_id, employee_id)
     SELECT id, company_id, employee_id FROM ended`,
    [key.issuer, key.sid ?? null, key.sub ?? null, now],
  );
  if (ended.length > 0) {
    await manager.query(
      `UPDATE issued_token SET revoked_at = $2, revoke_reason = 'backchannel_logout'
        WHERE revoked_at IS NULL AND session_id = ANY($1::uuid[])`,
      [ended.map((session) => session.id), now],
    );
  }
  return (await withEmails(manager, ended)).map((row) => ({
    id: row.id,
    companyId: row.company_id,
    employeeId: row.employee_id,
    email: row.email,
  }));
}
