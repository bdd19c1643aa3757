import { HttpStatus } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { lockCompanyForChange } from '../company/company-records';
import { employeeJoin } from '../employee/employee-sql';
import { ALL_PERMISSIONS, type Grant } from '../../access/permissions/permission';
import { countHolders } from './membership-records';

export const LAST_OWNER_REFUSAL = 'The company must keep at least one employee holding `*`; this is the last one.';

/**
 * Deletes an employee's membership of a company inside the caller's transaction, one change per company at a
 * time. `check` sees the membership's permissions first and may refuse. Never removes a company's last `*`
 * holder. Answers the removed membership's permissions and the employee's e-mail, or null when there was none.
 * Only the membership: src/staff/users/member-removal.ts also ends what the employee held in the company.
 */
export async function removeMembership(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  check: (permissions: Grant[]) => void = () => undefined,
): Promise<{ permissions: Grant[]; email: string } | null> {
  // One change at a time per company, as for permission changes: two owners removing each other at once must
  // not both see the other as the remaining `*` holder.
  await lockCompanyForChange(manager, companyId);
  const [membership] = await manager.query<Array<{ permissions: Grant[]; email: string; suspended: boolean }>>(
    `SELECT m.permissions, e.email, m.suspended_at IS NOT NULL AS suspended
       FROM membership m ${employeeJoin('e', 'm.employee_id')}
      WHERE m.employee_id = $1 AND m.company_id = $2`,
    [employeeId, companyId],
  );
  if (!membership) return null;
  check(membership.permissions);
  // A suspended `*` holder is not one of the holders counted: removing it leaves the active ones as they are.
  if (membership.permissions.includes(ALL_PERMISSIONS) && !membership.suspended) {
    if ((await countHolders(manager, companyId, ALL_PERMISSIONS)) <= 1)
      throw new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, LAST_OWNER_REFUSAL);
  }
  await manager.query('DELETE FROM membership WHERE employee_id = $1 AND company_id = $2', [employeeId, companyId]);
  return { permissions: membership.permissions, email: membership.email };
}
