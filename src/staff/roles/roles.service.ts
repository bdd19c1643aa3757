import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import type { AuditEventInput } from '../../audit/recorder/audit-event';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { grantableBy } from '../../access/permissions/grantable';
import { coversAll, type Grant } from '../../access/permissions/permission';
import { lockCompanyForChange } from '../../accounts/company/company-records';
import {
  deleteUnheldRole,
  findRole,
  insertRole,
  listRoles,
  roleNameTaken,
  type RoleWithHolders,
  updateRole,
} from '../../accounts/roles/role-records';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { type Page, type PageQueryDto, toPage } from '../../platform/common/http/pagination';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { RoleDto, RoleInputDto } from './dto/role.dto';

export const NO_SUCH_ROLE = 'No such role in this company.';
const GRANT_REFUSAL = 'A role can hold only permissions you hold yourself.';

export function roleDto(role: RoleWithHolders): RoleDto {
  return {
    id: role.id,
    name: role.name,
    permissions: role.permissions,
    holders: role.holders,
    created_at: role.createdAt.toISOString(),
    updated_at: role.updatedAt.toISOString(),
  };
}

/**
 * A company's roles (docs/contract.md "Company policies and roles"). Like a permission change, `users:write` must
 * never be a way to gain more: a role holds only what its editor holds, and a role holding something the caller
 * lacks can be neither changed nor deleted by that caller. A change reaches every holder's credentials (and so
 * their API keys) on every instance before the answer.
 */
@Injectable()
export class RolesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly bus: RevocationBus,
  ) {}

  async list(companyId: number, query: PageQueryDto): Promise<Page<RoleDto>> {
    const { roles, total } = await listRoles(this.dataSource.manager, companyId, {
      offset: query.offset,
      limit: query.per_page,
    });
    return toPage(roles.map(roleDto), total, query);
  }

  async create(principal: Principal, input: RoleInputDto, client: ClientInfo): Promise<RoleDto> {
    const permissions = grantableBy(principal, input.permissions, GRANT_REFUSAL);
    return this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, principal.companyId);
      await assertNameFree(manager, principal.companyId, input.name, null);
      const role = await insertRole(manager, principal.companyId, { name: input.name, permissions }, this.clock.now());
      await this.audit.record(
        manager,
        this.event(principal, client, 'role.created', role, { name: role.name, permissions }),
      );
      return roleDto(role);
    });
  }

  async replace(principal: Principal, id: number, input: RoleInputDto, client: ClientInfo): Promise<RoleDto> {
    const permissions = grantableBy(principal, input.permissions, GRANT_REFUSAL);
    const companyId = principal.companyId;
    const role = await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      const before = await findRole(manager, companyId, id, true);
      if (!before) throw ApiError.notFound(NO_SUCH_ROLE);
      assertCovers(principal, before.permissions);
      await assertNameFree(manager, companyId, input.name, id);
      const after = { name: input.name, permissions };
      if (before.name === after.name && before.permissions.join(',') === after.permissions.join(',')) return before;
      await updateRole(manager, companyId, id, after, this.clock.now());
      await this.audit.record(
        manager,
        this.event(principal, client, 'role.changed', before, {
          before: { name: before.name, permissions: before.permissions },
          after,
        }),
      );
      return (await findRole(manager, companyId, id))!;
    });
    // After the commit, as for a permission change: every holder's next request, anywhere, runs with the new set.
    await this.bus.publish({ type: 'roles', companyId });
    return roleDto(role);
  }

  async remove(principal: Principal, id: number, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, principal.companyId);
      const role = await findRole(manager, principal.companyId, id, true);
      if (!role) throw ApiError.notFound(NO_SUCH_ROLE);
      assertCovers(principal, role.permissions);
      if (!(await deleteUnheldRole(manager, principal.companyId, id))) {
        throw ApiError.conflict(`${role.holders} member(s) hold this role; take it from them first.`);
      }
      await this.audit.record(
        manager,
        this.event(principal, client, 'role.deleted', role, { name: role.name, permissions: role.permissions }),
      );
    });
  }

  private event(
    principal: Principal,
    client: ClientInfo,
    type: AuditEventInput['type'],
    role: { id: number; name: string },
    details: Record<string, unknown>,
  ): AuditEventInput {
    return {
      type,
      companyId: principal.companyId,
      ...requestContext(principal, client),
      subject: { kind: 'role', id: role.id, email: null },
      details,
    };
  }
}

/** A role holding something the caller lacks is not the caller's to change. */
function assertCovers(principal: Principal, held: readonly Grant[]): void {
  if (!coversAll(principal.permissions, held)) {
    throw new ApiError(
      ErrorCode.PermissionDenied,
      HttpStatus.FORBIDDEN,
      'This role holds permissions you do not; only someone holding them all can change it.',
    );
  }
}

async function assertNameFree(manager: EntityManager, companyId: number, name: string, id: number | null) {
  if (await roleNameTaken(manager, companyId, name, id)) {
    throw ApiError.conflict('Another role of this company has that name.');
  }
}
