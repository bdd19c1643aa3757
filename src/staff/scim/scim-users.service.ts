import { randomBytes } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AuditEventInput } from '../../audit/recorder/audit-event';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { Clock } from '../../platform/common/clock/clock';
import { lockCompanyForChange } from '../../accounts/company/company-records';
import { employeeIdOf, updateEmployeeProfile } from '../../accounts/employee/employee-records';
import { EmployeeService } from '../../accounts/employee/employee.service';
import {
  addMembership,
  countHolders,
  findProvisionedMember,
  type ProvisionedMember,
  setMembershipSuspended,
} from '../../accounts/membership/membership-records';
import { ALL_PERMISSIONS, coversAll } from '../../access/permissions/permission';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { endSessionsInCompany } from '../../identity/sessions/end-sessions';
import { LoginPolicy } from '../../identity/sessions/login-policy';
import { revokeKeysIn } from '../../identity/api-keys/api-key-records';
import { removeMember } from '../users/member-removal';
import { provisioningPermissionsFor } from './provisioning-permissions';
import { ScimError } from './scim-errors';
import type { ScimCaller } from './scim-tokens.service';
import { nameAfter, type UserChange } from './scim-user';

const LAST_OWNER =
  'This is the last active member holding `*` in the company; it can be neither suspended nor removed.';

/**
 * The one answer for an e-mail that is taken, whether by a member here or by an account this company may not
 * attach: nothing in it tells the two apart (docs/contract.md "No company attaches an account it does not own").
 */
const taken = () => new ScimError(HttpStatus.CONFLICT, 'A user with this userName already exists.', 'uniqueness');

/**
 * The writes of SCIM provisioning, each one transaction with its audit events: creating a member (and the
 * account when the e-mail has none), changing it (e-mail and name of an account only this company holds;
 * `active`, which suspends or restores the membership), and removing it as DELETE /v1/users/{id} does.
 * Suspension and removal end the member's sessions and API keys in the company inside the transaction, and are
 * announced on the revocation bus after the commit, which returns once every instance has confirmed.
 */
@Injectable()
export class ScimUsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly employees: EmployeeService,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly bus: RevocationBus,
    private readonly policy: LoginPolicy,
  ) {}

  async create(caller: ScimCaller, change: UserChange & { userName: string }, client: ClientInfo) {
    const { companyId } = caller;
    return this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      let employeeId = await employeeIdOf(manager, change.userName);
      const events: AuditEventInput[] = [];
      if (employeeId !== null) {
        if (await findProvisionedMember(manager, companyId, employeeId)) throw taken();
        if (!(await this.policy.mayAttach(manager, companyId, { id: employeeId, email: change.userName }))) {
          throw taken();
        }
      } else {
        // No password anyone knows: the member signs in through the company's identity provider, or sets one
        // with a reset code from an administrator.
        const name = nameAfter('', change);
        const employee = await this.employees.create(
          { email: change.userName, password: randomBytes(32).toString('base64url'), name: name || undefined },
          manager,
        );
        employeeId = employee.id;
        events.push(this.event(caller, client, 'employee.created', employeeId, change.userName, {}));
      }
      const permissions = await provisioningPermissionsFor(manager, companyId, caller.permissions);
      await addMembership(manager, employeeId, companyId, permissions);
      const suspended = change.active === false;
      if (suspended) await setMembershipSuspended(manager, employeeId, companyId, true, this.clock.now());
      events.push(
        this.event(caller, client, 'membership.added', employeeId, change.userName, {
          permissions,
          ...(suspended ? { suspended: true } : {}),
        }),
      );
      await this.audit.record(manager, events);
      return (await findProvisionedMember(manager, companyId, employeeId))!;
    });
  }

  /** PUT and PATCH: the member after `change`; 404 when the id is no member of the token's company. */
  async update(caller: ScimCaller, employeeId: number, change: UserChange, client: ClientInfo) {
    const { companyId } = caller;
    const outcome = await this.dataSource.transaction(async (manager) => {
      // One change per company at a time, as for permission changes: the last-owner count must hold.
      await lockCompanyForChange(manager, companyId);
      const member = await findProvisionedMember(manager, companyId, employeeId, true);
      if (!member) throw ScimError.notFound();
      assertCovers(caller, member);
      await this.changeProfile(manager, member, change);
      let suspended = false;
      if (change.active !== undefined && change.active === member.suspended) {
        if (change.active) await this.restore(manager, caller, member, client);
        else {
          await this.suspend(manager, caller, member, client);
          suspended = true;
        }
      }
      return { member: (await findProvisionedMember(manager, companyId, employeeId))!, suspended };
    });
    if (outcome.suspended) await this.bus.publish({ type: 'membership', employeeId, companyId });
    return outcome.member;
  }

  async remove(caller: ScimCaller, employeeId: number, client: ClientInfo): Promise<void> {
    const { companyId } = caller;
    await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      const member = await findProvisionedMember(manager, companyId, employeeId, true);
      if (!member) throw ScimError.notFound();
      assertCovers(caller, member);
      await this.assertNotLastOwner(manager, member, companyId);
      const removed = await removeMember(manager, employeeId, companyId, this.clock.now());
      if (!removed) throw ScimError.notFound();
      await this.audit.record(
        manager,
        this.event(caller, client, 'membership.removed', employeeId, removed.email, {
          permissions: removed.permissions,
        }),
      );
    });
    await this.bus.publish({ type: 'membership', employeeId, companyId });
  }

  /**
   * The account's e-mail and name belong to the person, not to one company: a company's identity provider may
   * change them only while the account belongs to that company alone (as for password resets, staff-guard.ts).
   */
  private async changeProfile(manager: EntityManager, member: ProvisionedMember, change: UserChange) {
    const email = change.userName ?? member.email;
    const name = nameAfter(member.name, change);
    if (email === member.email && name === member.name) return;
    if (member.companies > 1) {
      throw new ScimError(
        HttpStatus.BAD_REQUEST,
        'The account also belongs to another company: only the employee can change its e-mail or name.',
        'mutability',
      );
    }
    if (!(await updateEmployeeProfile(manager, member.employeeId, { email, name }, this.clock.now()))) {
      throw new ScimError(HttpStatus.CONFLICT, 'Another account already has this userName.', 'uniqueness');
    }
  }

  private async suspend(manager: EntityManager, caller: ScimCaller, member: ProvisionedMember, client: ClientInfo) {
    const { companyId } = caller;
    await this.assertNotLastOwner(manager, member, companyId);
    const now = this.clock.now();
    await setMembershipSuspended(manager, member.employeeId, companyId, true, now);
    // As a removal does: the tokens issued for this company and the member's keys here end now, for good.
    await endSessionsInCompany(manager, member.employeeId, companyId, now);
    await revokeKeysIn(manager, member.employeeId, companyId, now);
    // The contract's event types have no suspension of their own: a suspension takes the member out of the
    // company (membership.removed), a restoration puts it back (membership.added), each marked as such.
    await this.audit.record(
      manager,
      this.event(caller, client, 'membership.removed', member.employeeId, member.email, {
        permissions: member.permissions,
        suspended: true,
      }),
    );
  }

  private async restore(manager: EntityManager, caller: ScimCaller, member: ProvisionedMember, client: ClientInfo) {
    await setMembershipSuspended(manager, member.employeeId, caller.companyId, false, this.clock.now());
    await this.audit.record(
      manager,
      this.event(caller, client, 'membership.added', member.employeeId, member.email, {
        permissions: member.permissions,
        restored: true,
      }),
    );
  }

  private async assertNotLastOwner(manager: EntityManager, member: ProvisionedMember, companyId: number) {
    if (member.suspended || !member.ownPermissions.includes(ALL_PERMISSIONS)) return;
    if ((await countHolders(manager, companyId, ALL_PERMISSIONS)) <= 1) {
      throw new ScimError(HttpStatus.CONFLICT, LAST_OWNER);
    }
  }

  /** An event of a SCIM request: the token acts (as an API credential of the company, by its id). */
  private event(
    caller: ScimCaller,
    client: ClientInfo,
    type: AuditEventInput['type'],
    employeeId: number,
    email: string,
    details: Record<string, unknown>,
  ): AuditEventInput {
    return {
      type,
      companyId: caller.companyId,
      actor: { kind: 'api_key', id: caller.tokenId, email: null },
      subject: { kind: 'employee', id: employeeId, email },
      ip: client.ip,
      userAgent: client.userAgent,
      details: { ...details, via: 'scim' },
    };
  }
}

/** A token changes no member who holds a permission it lacks (docs/contract.md "Nobody grants more than they hold"). */
function assertCovers(caller: ScimCaller, member: ProvisionedMember): void {
  if (coversAll(caller.permissions, member.permissions)) return;
  throw new ScimError(
    HttpStatus.FORBIDDEN,
    'This member holds permissions this SCIM token does not: it can neither change, suspend nor remove them.',
  );
}
