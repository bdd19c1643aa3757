import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { lockCompanyForChange } from '../../accounts/company/company-records';
import { countHolders, findMembershipWithEmployee, setPermissions } from '../../accounts/membership/membership-records';
import { grantableBy } from '../../access/permissions/grantable';
import { ALL_PERMISSIONS, coversAll } from '../../access/permissions/permission';
import type { ReplacePermissionsDto } from './dto/user-permissions.dto';
import type { CompanyEmployeeDto } from './dto/users.dto';

const EMPLOYEE_NOT_FOUND = 'No such employee in this company.';

function denied(message: string): ApiError {
  return new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, message);
}

/**
 * Changing what an employee may do in the caller's company. `users:write` must never be a way to gain, or to
 * take away, more than the caller holds, so three rules apply (an employee holding `*` passes the first two):
 *
 * 1. The new set must be covered by the caller's own permissions (as for creating an employee).
 * 2. The employee's current set must be covered too: a caller cannot strip or alter an employee who holds
 *    something the caller does not (in particular, only a `*` holder can change a `*` holder).
 * 3. A company keeps at least one `*` holder: the last one cannot lose it, or nobody could hand out every
 *    permission again short of the operator CLI.
 *
 * The caller's permissions are those of the credential: an API key counts with its own (narrower) set.
 */
@Injectable()
export class UserPermissionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: RevocationBus,
    private readonly audit: AuditRecorder,
  ) {}

  async replace(
    principal: Principal,
    employeeId: number,
    input: ReplacePermissionsDto,
    client: ClientInfo,
  ): Promise<CompanyEmployeeDto> {
    const permissions = grantableBy(principal, input.permissions, 'You can grant only permissions you hold yourself.');
    const companyId = principal.companyId;
    const employee = await this.dataSource.transaction(async (manager) => {
      // One change at a time per company: two owners demoting each other at once must not both see the other
      // as the remaining `*` holder.
      await lockCompanyForChange(manager, companyId);
      const membership = await findMembershipWithEmployee(manager, employeeId, companyId);
      if (!membership) throw ApiError.notFound(EMPLOYEE_NOT_FOUND);
      if (!coversAll(principal.permissions, membership.permissions)) {
        throw denied('This employee holds permissions you do not; only someone holding them all can change theirs.');
      }
      if (membership.permissions.includes(ALL_PERMISSIONS) && !permissions.includes(ALL_PERMISSIONS)) {
        if ((await countHolders(manager, companyId, ALL_PERMISSIONS)) <= 1)
          throw denied('The company must keep at least one employee holding `*`.');
      }
      await setPermissions(manager, employeeId, companyId, permissions);
      const before = [...membership.permissions].sort();
      // Setting the same set again changes nothing, and so records nothing.
      if (before.join(',') !== [...permissions].sort().join(',')) {
        await this.audit.record(manager, {
          type: 'permissions.changed',
          companyId,
          ...requestContext(principal, client),
          subject: { kind: 'employee', id: employeeId, email: membership.employee!.email },
          details: { before, after: [...permissions].sort() },
        });
      }
      return membership.employee!;
    });
    // After the commit, so that no instance can reload the old permissions after evicting them. It returns once
    // every instance has confirmed: the employee's next request, anywhere, runs with the new set.
    await this.bus.publish({ type: 'membership', employeeId, companyId });
    return { id: employee.id, email: employee.email, name: employee.name, permissions };
  }
}
