import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { EmployeeService } from '../../accounts/employee/employee.service';
import { addMembership, pageOfMembers } from '../../accounts/membership/membership-records';
import { effectiveOfMembers } from '../../accounts/membership/membership-effective';
import { grantableBy } from '../../access/permissions/grantable';
import { type Grant, normalizeGrants } from '../../access/permissions/permission';
import { type Page, toPage } from '../../platform/common/http/pagination';
import type {
  CompanyEmployeeDto,
  CreateEmployeeDto,
  EmployeeListQueryDto,
  ListedEmployeeDto,
  MeDto,
} from './dto/users.dto';

/** Employees as seen from inside one company. */
@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly employees: EmployeeService,
    private readonly audit: AuditRecorder,
  ) {}

  /** From the verified credential alone: the hot path of a client checking who it is costs no query. */
  me(principal: Principal): MeDto {
    const me: MeDto = {
      employee: { ...principal.employee },
      company: { ...principal.company },
      permissions: [...principal.permissions],
      roles: principal.roles.map((role) => ({ ...role })),
      credential: principal.kind,
      session_id: principal.sessionId,
      mfa: { ...principal.mfa },
    };
    if (principal.restricted !== undefined) me.restricted = principal.restricted;
    return me;
  }

  async list(companyId: number, query: EmployeeListQueryDto): Promise<Page<ListedEmployeeDto>> {
    const [memberships, total] = await pageOfMembers(this.dataSource.manager, companyId, {
      q: query.q || undefined,
      mfa: query.mfa,
      offset: query.offset,
      limit: query.per_page,
    });
    // The effective permissions and roles of the page's members, in one more statement.
    const effective = await effectiveOfMembers(
      this.dataSource.manager,
      companyId,
      memberships.map((membership) => membership.employeeId),
    );
    const data = memberships.map(({ employee, employeeId, permissions }) => ({
      id: employee!.id,
      email: employee!.email,
      name: employee!.name,
      permissions: normalizeGrants(effective.get(employeeId)?.permissions ?? permissions),
      roles: effective.get(employeeId)?.roles ?? [],
      mfa: employee!.totpEnabledAt !== null,
    }));
    return toPage(data, total, query);
  }

  /**
   * Creates an employee in the caller's company. The caller can hand out only permissions it holds itself,
   * so `users:write` is not a way to gain more.
   */
  async create(principal: Principal, input: CreateEmployeeDto, client: ClientInfo): Promise<CompanyEmployeeDto> {
    const permissions = grantableBy(principal, input.permissions, 'You can grant only permissions you hold yourself.');
    return this.dataSource.transaction(async (manager) => {
      const employee = await this.employees.create(input, manager);
      await addMembership(manager, employee.id, principal.companyId, permissions);
      const shared = {
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'employee' as const, id: employee.id, email: employee.email },
      };
      await this.audit.record(manager, [
        { ...shared, type: 'employee.created' },
        { ...shared, type: 'membership.added', details: { permissions } },
      ]);
      return {
        id: employee.id,
        email: employee.email,
        name: employee.name,
        permissions: permissions as Grant[],
        roles: [],
      };
    });
  }
}
