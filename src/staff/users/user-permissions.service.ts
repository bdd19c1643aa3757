import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { lockCompanyForChange } from '../../accounts/company/company-records';
import { countHolders, findMembershipWithEmployee, setPermissions } from '../../accounts/membership/membership-records';
import { rolesAmong, roleIdsOf, setMemberRoles } from '../../accounts/roles/role-records';
import { grantableBy } from '../../access/permissions/grantable';
import { ALL_PERMISSIONS, coversAll, type Grant, normalizeGrants } from '../../access/permissions/permission';
import type { ReplacePermissionsDto } from './dto/user-permissions.dto';
import type { CompanyEmployeeDto } from './dto/users.dto';

const EMPLOYEE_NOT_FOUND = 'No such employee in this company.';

function denied(message: string): ApiError {
  return new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, message);
}

const sameSet = (a: readonly (string | number)[], b: readonly (string | number)[]) =>
  [...a].sort().join(',') === [...b].sort().join(',');

/** The roles of the company with these ids, every one of them; 400 naming the field when one is not. */
async function companyRoles(manager: EntityManager, companyId: number, ids: readonly number[]) {
  const roles = await rolesAmong(manager, companyId, ids);
  if (roles.length !== new Set(ids).size) {
    // The same answer for an id of another company and an id of none: nothing is told about other companies.
    throw ApiError.validation('roles must name roles of this company', [
      { field: 'roles', message: 'roles must name roles of this company' },
    ]);
  }
  return roles;
}

/**
 * Changing what an employee may do in the caller's company: its own permissions and, with `roles`, the roles it
 * holds. `users:write` must never be a way to gain, or to take away, more than the caller holds, so three rules
 * apply (an employee holding `*` passes the first two):
 *
 * 1. The new effective set (own and roles') must be covered by the caller's own permissions.
 * 2. The employee's current effective set must be covered too: a caller cannot strip or alter an employee who
 *    holds something the caller does not (in particular, only a `*` holder can change a `*` holder).
 * 3. A company keeps at least one member holding `*` of its own: the last one cannot lose it, or nobody could
 *    hand out every permission again short of the operator CLI. (A role's `*` does not count: roles change.)
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
    const refusal = 'You can grant only permissions you hold yourself.';
    const permissions = grantableBy(principal, input.permissions, refusal);
    const companyId = principal.companyId;
    const result = await this.dataSource.transaction(async (manager) => {
      // One change at a time per company: two owners demoting each other at once must not both see the other
      // as the remaining `*` holder, and a role deleted meanwhile waits.
      await lockCompanyForChange(manager, companyId);
      const membership = await findMembershipWithEmployee(manager, employeeId, companyId);
      if (!membership) throw ApiError.notFound(EMPLOYEE_NOT_FOUND);
      const rolesBefore = await roleIdsOf(manager, employeeId, companyId);
      const heldRoles = await rolesAmong(manager, companyId, rolesBefore);
      const effectiveBefore = [...membership.permissions, ...heldRoles.flatMap((role) => role.permissions)];
      if (!coversAll(principal.permissions, effectiveBefore)) {
        throw denied('This employee holds permissions you do not; only someone holding them all can change theirs.');
      }
      const roles = input.roles === undefined ? heldRoles : await companyRoles(manager, companyId, input.roles);
      grantableBy(
        principal,
        roles.flatMap((role) => role.permissions),
        refusal,
      );
      if (membership.permissions.includes(ALL_PERMISSIONS) && !permissions.includes(ALL_PERMISSIONS)) {
        if ((await countHolders(manager, companyId, ALL_PERMISSIONS)) <= 1)
          throw denied('The company must keep at least one employee holding `*`.');
      }
      await setPermissions(manager, employeeId, companyId, permissions);
      const rolesAfter = roles.map((role) => role.id);
      if (input.roles !== undefined) await setMemberRoles(manager, employeeId, companyId, rolesAfter);
      const before = [...membership.permissions].sort();
      const rolesChanged = !sameSet(rolesBefore, rolesAfter);
      // Setting the same sets again changes nothing, and so records nothing.
      if (!sameSet(before, permissions) || rolesChanged) {
        await this.audit.record(manager, {
          type: 'permissions.changed',
          companyId,
          ...requestContext(principal, client),
          subject: { kind: 'employee', id: employeeId, email: membership.employee!.email },
          details: {
            before,
            after: [...permissions].sort(),
            ...(rolesChanged ? { roles_before: rolesBefore, roles_after: [...rolesAfter].sort((a, b) => a - b) } : {}),
          },
        });
      }
      const effective: Grant[] = normalizeGrants([...permissions, ...roles.flatMap((role) => role.permissions)]);
      const employee = membership.employee!;
      const roleRefs = roles.map((role) => ({ id: role.id, name: role.name })).sort((a, b) => a.id - b.id);
      return { id: employee.id, email: employee.email, name: employee.name, permissions: effective, roles: roleRefs };
    });
    // After the commit, so that no instance can reload the old permissions after evicting them. It returns once
    // every instance has confirmed: the employee's next request, anywhere, runs with the new set.
    await this.bus.publish({ type: 'membership', employeeId, companyId });
    return result;
  }
}
