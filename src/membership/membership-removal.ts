import { HttpStatus } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import { ALL_PERMISSIONS, type Grant } from '../permissions/permission';

export const LAST_OWNER_REFUSAL = 'The company must keep at least one employee holding `*`; this is the last one.';

/**
 * Takes an employee out of a company inside the caller's transaction, for the API (DELETE /v1/users/{id}) and
 * the CLI (membership:remove) alike: the membership goes, tokens issued for that company are blacklisted,
 * sessions working in it end, and the employee's API keys there are revoked. Sessions working in another company
 * go on. `check` sees the membership's permissions first and may refuse. Never removes a company's last `*`
 * holder. Answers the removed membership's permissions and the employee's e-mail, or null when there was none. The caller announces the
 * change on the revocation bus after the commit.
 */
export async function removeMembership(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  now: Date,
  check: (permissions: Grant[]) => void = () => undefined,
): Promise<{ permissions: Grant[]; email: string } | null> {
  // One change at a time per company, as for permission changes: two owners removing each other at once must
  // not both see the other as the remaining `*` holder.
  await manager.query('SELECT id FROM company WHERE id = $1 FOR NO KEY UPDATE', [companyId]);
  const [membership] = await manager.query<Array<{ permissions: Grant[]; email: string }>>(
    `SELECT membership.permissions, employee.email FROM membership JOIN employee ON employee.id = membership.employee_id
      WHERE membership.employee_id = $1 AND membership.company_id = $2`,
    [employeeId, companyId],
  );
  if (!membership) return null;
  check(membership.permissions);
  if (membership.permissions.includes(ALL_PERMISSIONS)) {
    const [{ owners }] = await manager.query<Array<{ owners: number }>>(
      'SELECT count(*)::int AS owners FROM membership WHERE company_id = $1 AND $2 = ANY(permissions)',
      [companyId, ALL_PERMISSIONS],
    );
    if (owners <= 1) throw new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, LAST_OWNER_REFUSAL);
  }
  await manager.query('DELETE FROM membership WHERE employee_id = $1 AND company_id = $2', [employeeId, companyId]);
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
  await manager.query(
    'UPDATE api_key SET revoked_at = $3 WHERE employee_id = $1 AND company_id = $2 AND revoked_at IS NULL',
    [employeeId, companyId, now],
  );
  return membership;
}
