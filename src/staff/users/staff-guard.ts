import { HttpStatus } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { accountMemberships } from '../../accounts/membership/membership-grants';
import { coversAll } from '../../access/permissions/permission';

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
  const account = await accountMemberships(manager, { employeeId }, 'lock');
  const here = account?.memberships.find((row) => row.companyId === principal.companyId);
  if (!account || !here) throw ApiError.notFound(NO_SUCH_EMPLOYEE);
  const denied = (message: string) => new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, message);
  if (account.memberships.length > 1) {
    throw denied('This employee also belongs to another company; only the employee can change their own account.');
  }
  if (!coversAll(principal.permissions, here.permissions)) {
    throw denied('This employee holds permissions you do not; only someone holding them all can do this.');
  }
  return { email: account.email };
}
