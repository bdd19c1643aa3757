import type { EntityManager } from 'typeorm';
import { revokeKeysIn } from '../../identity/api-keys/api-key-records';
import { removeMembership } from '../../accounts/membership/membership-removal';
import type { Grant } from '../../access/permissions/permission';
import { endSessionsInCompany } from '../../identity/sessions/end-sessions';

/**
 * Takes an employee out of a company inside the caller's transaction, for the API (DELETE /v1/users/{id}) and
 * the CLI (membership:remove) alike, one call into each owner: the membership goes (membership/, which refuses
 * the last `*` holder and lets `check` refuse first), tokens issued for that company are blacklisted and the
 * sessions working in it end (sessions/), and the employee's API keys there are revoked (api-keys/). Sessions
 * working in another company go on. Answers the removed membership's permissions and the employee's e-mail, or
 * null when there was none (and then changes nothing). The caller announces the change on the revocation bus
 * after the commit.
 */
export async function removeMember(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  now: Date,
  check: (permissions: Grant[]) => void = () => undefined,
): Promise<{ permissions: Grant[]; email: string } | null> {
  const removed = await removeMembership(manager, employeeId, companyId, check);
  if (!removed) return null;
  await endSessionsInCompany(manager, employeeId, companyId, now);
  await revokeKeysIn(manager, employeeId, companyId, now);
  return removed;
}
