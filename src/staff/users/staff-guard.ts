import { HttpStatus } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { employeeFrom } from '../../accounts/employee/employee-sql';
import { membershipJoin } from '../../accounts/membership/membership-sql';
import { effectivePermissionsColumn } from '../../accounts/roles/role-sql';
import { coversAll, type Grant } from '../../access/permissions/permission';

export const NO_SUCH_EMPLOYEE = 'No such employee in this company.';

/**
 * Who an administrator may issue a reset code for, or turn TOTP off for (docs/contract.md): an employee of the
 * caller's company (else 404, like any other company's record) who belongs to no other company and holds
 * nothing the caller lacks (else 403). A company must never be able to take over an account that another company
 * relies on. Locks the employee's row, so a membership added meanwhile waits for this decision.
 */
export async function assertAccountTakeoverAllowed(
  manager: EntityManager,
  principal: Principal,
  employeeId: number,
): Promise<{ email: string }> {
  const rows = await manager.query<Array<{ email: string; company_id: number; permissions: Grant[] }>>(
    `SELECT e.email, m.company_id, ${effectivePermissionsColumn('m')} AS permissions
       ${employeeFrom('e')} ${membershipJoin('m', 'e.id', null, 'JOIN', 'include')}
      WHERE e.id = $1 FOR UPDATE OF e`,
    [employeeId],
  );
  const here = rows.find((row) => row.company_id === principal.companyId);
  if (!here) throw ApiError.notFound(NO_SUCH_EMPLOYEE);
  const denied = (message: string) => new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, message);
  if (rows.length > 1) {
    throw denied('This employee also belongs to another company; only the employee can change their own account.');
  }
  if (!coversAll(principal.permissions, here.permissions)) {
    throw denied('This employee holds permissions you do not; only someone holding them all can do this.');
  }
  return { email: here.email };
}
