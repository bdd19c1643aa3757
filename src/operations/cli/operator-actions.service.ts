import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OPERATOR } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { EmployeeService, assertAcceptablePassword, normalizeEmail } from '../../accounts/employee/employee.service';
import { setPasswordHash } from '../../accounts/employee/employee-records';
import { PasswordHasher } from '../../accounts/employee/password-hasher';
import { MembershipService } from '../../accounts/membership/membership.service';
import type { Grant } from '../../access/permissions/permission';
import { endSessionsOf } from '../../identity/sessions/end-sessions';
import { removeMember } from '../../staff/users/member-removal';

export interface MembershipView {
  employee_id: number;
  company_id: number;
  permissions: Grant[];
}

/**
 * The operator's changes to accounts (docs/contract.md, CLI). Each one is stored first, in one transaction, and then
 * announced on the revocation bus, so every running instance drops what it remembered about the employee's
 * credentials and the change holds on the next request there: the operator's prompt returns only after the
 * instances have confirmed (bounded by the bus's wait).
 */
@Injectable()
export class OperatorActionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly employees: EmployeeService,
    private readonly memberships: MembershipService,
    private readonly hasher: PasswordHasher,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  /** Adds or replaces a membership; narrowed permissions apply to every live token and API key at once. */
  async grant(email: string, companyId: number, permissions: Grant[]): Promise<MembershipView> {
    const membership = await this.dataSource.transaction(async (manager) => {
      const granted = await this.memberships.grantIn(manager, email, companyId, permissions);
      const after = [...granted.membership.permissions].sort();
      const before = granted.before && [...granted.before].sort();
      const subject = { kind: 'employee' as const, id: granted.membership.employeeId, email: granted.email };
      if (before === null) {
        await this.audit.record(manager, {
          type: 'membership.added',
          companyId,
          actor: OPERATOR,
          subject,
          details: { permissions: after },
        });
      } else if (before.join(',') !== after.join(',')) {
        await this.audit.record(manager, {
          type: 'permissions.changed',
          companyId,
          actor: OPERATOR,
          subject,
          details: { before, after },
        });
      }
      return granted.membership;
    });
    await this.bus.publish({ type: 'membership', employeeId: membership.employeeId, companyId });
    return {
      employee_id: membership.employeeId,
      company_id: membership.companyId,
      permissions: membership.permissions,
    };
  }

  /**
   * Takes an employee out of a company: the membership goes, and so do the employee's credentials there —
   * tokens issued for that company are blacklisted, sessions whose working company it is are ended, and API
   * keys of that company are revoked. Sessions working in another company go on. A company's last `*` holder
   * stays (403, so exit code 2): nobody could hand out every permission again.
   */
  async removeMembership(email: string, companyId: number): Promise<{ employee_id: number; company_id: number }> {
    const employee = await this.employees.findByEmail(email);
    if (!employee) throw ApiError.notFound(`no employee has the e-mail ${normalizeEmail(email)}`);
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      const removed = await removeMember(manager, employee.id, companyId, now);
      if (!removed) throw ApiError.notFound(`${employee.email} is not a member of company ${companyId}`);
      await this.audit.record(manager, {
        type: 'membership.removed',
        companyId,
        actor: OPERATOR,
        subject: { kind: 'employee', id: employee.id, email: employee.email },
        details: { permissions: [...removed.permissions].sort() },
      });
    });
    // One notice covers every cached credential of the employee in that company, JWTs and API keys alike.
    await this.bus.publish({ type: 'membership', employeeId: employee.id, companyId });
    return { employee_id: employee.id, company_id: companyId };
  }

  /** Replaces the password and ends every session of the employee (API keys are not sessions and stay). */
  async setPassword(email: string, password: string): Promise<{ id: number; email: string }> {
    const employee = await this.employees.findByEmail(email);
    if (!employee) throw ApiError.notFound(`no employee has the e-mail ${normalizeEmail(email)}`);
    assertAcceptablePassword(password, employee.email);
    const passwordHash = await this.hasher.hash(password);
    const now = this.clock.now();
    const ended = await this.dataSource.transaction(async (manager) => {
      await setPasswordHash(manager, employee.id, passwordHash, now);
      const sessions = await endSessionsOf(manager, employee.id, now, 'password_changed');
      // In every company of the account: each one's administrators see that its sessions were ended.
      await this.audit.recordForAccount(
        manager,
        { employeeId: employee.id },
        { type: 'password.changed', actor: OPERATOR, details: { sessions_ended: sessions.length } },
      );
      return sessions;
    });
    await Promise.all(ended.map((sessionId) => this.bus.publish({ type: 'session', sessionId })));
    return { id: employee.id, email: employee.email };
  }
}
