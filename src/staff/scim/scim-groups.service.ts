import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AuditEventInput } from '../../audit/recorder/audit-event';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { coversAll } from '../../access/permissions/permission';
import { lockCompanyForChange } from '../../accounts/company/company-records';
import { effectiveOfMembers } from '../../accounts/membership/membership-effective';
import {
  deleteUnheldRole,
  findRole,
  holdersWithEmails,
  insertRole,
  listRoles,
  roleNameTaken,
  type RoleWithHolders,
  setHolder,
  updateRole,
} from '../../accounts/roles/role-records';
import { Clock } from '../../platform/common/clock/clock';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { ScimError } from './scim-errors';
import { type GroupChange, type GroupState, noSuchGroup } from './scim-group';
import type { ScimCaller } from './scim-tokens.service';

const taken = () => new ScimError(HttpStatus.CONFLICT, 'A group with this displayName already exists.', 'uniqueness');

/**
 * SCIM Groups are the company's roles (docs/contract.md "Company policies and roles"): `displayName` the role's
 * name, `members` its holders. A group a directory creates is a role with no permissions (an administrator grants
 * them). The token's cap applies to what a change grants or takes: a token changes, fills or deletes only groups
 * whose permissions it holds itself (403 otherwise). Each write is one transaction with its event; a change of
 * holders is announced on the instance bus after the commit, as a role change is.
 */
@Injectable()
export class ScimGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly bus: RevocationBus,
  ) {}

  async list(companyId: number, page: { name?: string; offset: number; limit: number }) {
    const manager = this.dataSource.manager;
    const { roles, total } = await listRoles(manager, companyId, page);
    return { groups: await this.withMembers(manager, companyId, roles), total };
  }

  async find(companyId: number, id: number): Promise<GroupState> {
    const role = await findRole(this.dataSource.manager, companyId, id);
    if (!role) throw noSuchGroup();
    return (await this.withMembers(this.dataSource.manager, companyId, [role]))[0];
  }

  async create(caller: ScimCaller, change: GroupChange & { displayName: string }, client: ClientInfo) {
    const { companyId } = caller;
    const group = await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      if (await roleNameTaken(manager, companyId, change.displayName)) throw taken();
      const members = await membersOfCompany(manager, companyId, change.members ?? []);
      const role = await insertRole(
        manager,
        companyId,
        { name: change.displayName, permissions: [] },
        this.clock.now(),
      );
      for (const employeeId of members) await setHolder(manager, employeeId, companyId, role.id, true);
      await this.audit.record(
        manager,
        this.event(caller, client, 'role.created', role, { name: role.name, permissions: [], members_added: members }),
      );
      return (await this.withMembers(manager, companyId, [{ ...role, holders: members.length }]))[0];
    });
    if (group.members.length > 0) await this.bus.publish({ type: 'roles', companyId });
    return group;
  }

  async update(caller: ScimCaller, id: number, change: GroupChange, client: ClientInfo): Promise<GroupState> {
    const { companyId } = caller;
    const { group, changed } = await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      const role = await this.changeable(manager, caller, id);
      const name = change.displayName ?? role.name;
      if (name !== role.name && (await roleNameTaken(manager, companyId, name, id))) throw taken();
      const current = new Set((await holdersWithEmails(manager, companyId, [id])).get(id)!.map((h) => h.employeeId));
      const wanted = new Set(change.members ?? current);
      for (const employeeId of change.add) wanted.add(employeeId);
      for (const employeeId of change.remove) wanted.delete(employeeId);
      const added = await membersOfCompany(
        manager,
        companyId,
        [...wanted].filter((employeeId) => !current.has(employeeId)),
      );
      const removed = [...current].filter((employeeId) => !wanted.has(employeeId));
      for (const employeeId of added) await setHolder(manager, employeeId, companyId, id, true);
      for (const employeeId of removed) await setHolder(manager, employeeId, companyId, id, false);
      const renamed = name !== role.name;
      if (renamed) await updateRole(manager, companyId, id, { name, permissions: role.permissions }, this.clock.now());
      if (renamed || added.length > 0 || removed.length > 0) {
        await this.audit.record(
          manager,
          this.event(caller, client, 'role.changed', role, {
            before: { name: role.name, permissions: role.permissions },
            after: { name, permissions: role.permissions },
            members_added: added,
            members_removed: removed,
          }),
        );
      }
      const after = (await findRole(manager, companyId, id))!;
      return {
        group: (await this.withMembers(manager, companyId, [after]))[0],
        changed: renamed || added.length + removed.length > 0,
      };
    });
    if (changed) await this.bus.publish({ type: 'roles', companyId });
    return group;
  }

  /** The directory deleted the group: its holders let go of the role, and the role is gone. */
  async remove(caller: ScimCaller, id: number, client: ClientInfo): Promise<void> {
    const { companyId } = caller;
    await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      const role = await this.changeable(manager, caller, id);
      const holders = (await holdersWithEmails(manager, companyId, [id])).get(id)!;
      for (const holder of holders) await setHolder(manager, holder.employeeId, companyId, id, false);
      await deleteUnheldRole(manager, companyId, id);
      await this.audit.record(
        manager,
        this.event(caller, client, 'role.deleted', role, {
          name: role.name,
          permissions: role.permissions,
          members_removed: holders.map((holder) => holder.employeeId),
        }),
      );
    });
    await this.bus.publish({ type: 'roles', companyId });
  }

  /** The role, locked; 404 when the company has none of that id, 403 when it holds what the token lacks. */
  private async changeable(manager: EntityManager, caller: ScimCaller, id: number): Promise<RoleWithHolders> {
    const role = await findRole(manager, caller.companyId, id, true);
    if (!role) throw noSuchGroup();
    if (!coversAll(caller.permissions, role.permissions)) {
      throw new ScimError(
        HttpStatus.FORBIDDEN,
        'This group grants permissions this SCIM token does not hold: it can neither change nor delete it.',
      );
    }
    return role;
  }

  private async withMembers(
    manager: EntityManager,
    companyId: number,
    roles: RoleWithHolders[],
  ): Promise<GroupState[]> {
    const holders = await holdersWithEmails(
      manager,
      companyId,
      roles.map((role) => role.id),
    );
    return roles.map((role) => ({
      id: role.id,
      name: role.name,
      createdAt: role.createdAt,
      updatedAt: role.updatedAt,
      members: holders.get(role.id) ?? [],
    }));
  }

  private event(
    caller: ScimCaller,
    client: ClientInfo,
    type: AuditEventInput['type'],
    role: { id: number },
    details: Record<string, unknown>,
  ): AuditEventInput {
    return {
      type,
      companyId: caller.companyId,
      actor: { kind: 'api_key', id: caller.tokenId, email: null },
      subject: { kind: 'role', id: role.id, email: null },
      ip: client.ip,
      userAgent: client.userAgent,
      details: { ...details, via: 'scim' },
    };
  }
}

/** The ids, when every one is a member of the company (suspended ones too); 400 otherwise, changing nothing. */
async function membersOfCompany(manager: EntityManager, companyId: number, ids: readonly number[]): Promise<number[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  const found = await effectiveOfMembers(manager, companyId, unique);
  if (found.size !== unique.length) throw ScimError.invalidValue('Every member must be a User of this company.');
  return unique;
}
