import type { EntityManager } from 'typeorm';
import { withEmails } from '../../accounts/employee/employee-records';
import type { PolicyView } from '../../accounts/company-policy/company-policy-records';
import { allowlistTest } from '../../accounts/company-policy/ip-allowlist';
import { ipNotAllowed } from '../../accounts/company-policy/policy-errors';

/**
 * docs/contract.md "Company policies and roles": a login into the company, a switch into it and a refresh in it
 * from a client address outside its `ip_allowlist` answer 403 error_ip_not_allowed. The caller reads the policy
 * inside its transaction (SessionStore.policy), so a policy saved a moment before applies.
 */
export function assertAddressAllowed(policy: PolicyView, ip: string): void {
  const test = allowlistTest(policy.ip_allowlist);
  if (test !== null && !test(ip)) throw ipNotAllowed();
}

/**
 * Sessions a new `ip_allowlist` refuses: the live sessions working in `companyId` whose last known client
 * address is outside it, except `keep` (the caller's, whose address the list holds). Ends them and blacklists
 * their tokens inside the caller's transaction, and answers them for the caller's events and bus notices.
 */
export async function endSessionsOutside(
  manager: EntityManager,
  companyId: number,
  allows: (ip: string) => boolean,
  keep: string | null,
  now: Date,
): Promise<Array<{ id: string; email: string }>> {
  const live = await manager.query<Array<{ id: string; ip: string | null; employee_id: number }>>(
    `SELECT s.id, s.ip, s.employee_id FROM login_session s WHERE s.company_id = $1 AND s.ended_at IS NULL`,
    [companyId],
  );
  const outside = live.filter((session) => session.id !== keep && (session.ip === null || !allows(session.ip)));
  if (outside.length === 0) return [];
  const refused = await withEmails(manager, outside);
  const ids = refused.map((session) => session.id);
  await manager.query(
    `UPDATE login_session SET ended_at = $2, end_reason = 'ip_not_allowed' WHERE id = ANY($1::uuid[])`,
    [ids, now],
  );
  await manager.query(
    `UPDATE issued_token SET revoked_at = $2, revoke_reason = 'ip_not_allowed'
      WHERE revoked_at IS NULL AND session_id = ANY($1::uuid[])`,
    [ids, now],
  );
  return refused.map(({ id, email }) => ({ id, email }));
}

/**
 * A shorter `session_days`: the company's live tokens expire at 23:59:59 Vietnam time (UTC+7) of the new last
 * day after the day each was issued, where that is sooner than they would have. Inside the caller's
 * transaction; the caller's bus notice makes every instance read the new expiry.
 */
export async function shortenTokensIn(manager: EntityManager, companyId: number, days: number): Promise<void> {
  const bound =
    "((date_trunc('day', (issued_at AT TIME ZONE 'UTC') + interval '7 hours') + ($2::int + 1) * interval '1 day'" +
    " - interval '1 second' - interval '7 hours') AT TIME ZONE 'UTC')";
  await manager.query(
    `UPDATE issued_token SET expires_at = ${bound}
      WHERE company_id = $1 AND revoked_at IS NULL AND expires_at > ${bound}`,
    [companyId, days],
  );
}
