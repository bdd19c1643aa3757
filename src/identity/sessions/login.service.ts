import { randomUUID } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { AccountCheck } from '../auth/account-check.service';
import type { SecondFactorInput } from '../auth/mfa/second-factor.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import type { Employee } from '../../accounts/employee/employee.entity';
import { employeeById } from '../../accounts/employee/employee-records';
import { MembershipService } from '../../accounts/membership/membership.service';
import { takeLoginTicket } from '../passkeys/login-tickets';
import { type LoginResult, toLoginResult } from './login-result';
import { assertAddressAllowed } from './company-policy-gate';
import { LoginPolicy } from './login-policy';
import type { LoginMethod, LoginSession } from './login-session.entity';
import { SessionStore } from './session-store';
import { TokenIssuer } from './token-issuer.service';

/** The login a refusal of its client address ended: recorded by `recordingAddressRefusal` once rolled back. */
const refusedLogins = new WeakMap<object, { employeeId: number; companyId: number }>();

/**
 * The two-step login: credentials (checked by auth's {@link AccountCheck}) → the account's companies → a new
 * login session with a token bound to the chosen company.
 */
@Injectable()
export class LoginService {
  constructor(
    private readonly store: SessionStore,
    private readonly accounts: AccountCheck,
    private readonly memberships: MembershipService,
    private readonly issuer: TokenIssuer,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly metrics: AppMetrics,
    private readonly policy: LoginPolicy,
  ) {}

  /** Login step 1; `otpRequired` is told only to someone who proved the password. */
  async listCompanies(
    email: string,
    password: string,
    client: ClientInfo,
  ): Promise<{ companies: Array<{ id: number; name: string; sso: boolean }>; otpRequired: boolean }> {
    const employee = await this.accounts.checkCredentials(email, password, client);
    const memberships = await this.memberships.companiesOf(employee.id);
    const enforced = await this.policy.enforcedAmong(memberships.map(({ company }) => company!.id));
    return {
      companies: memberships.map(({ company }) => ({
        id: company!.id,
        name: company!.name,
        sso: enforced.has(company!.id),
      })),
      otpRequired: employee.totpEnabledAt !== null,
    };
  }

  async login(
    email: string,
    password: string,
    companyId: number,
    client: ClientInfo,
    secondFactor: SecondFactorInput = {},
  ): Promise<LoginResult> {
    const employee = await this.accounts.verifyAccount(email, password, client, secondFactor, companyId);
    const membership = await this.memberships.find(employee.id, companyId);
    if (!membership) {
      this.metrics.login('not_member');
      await this.accounts.recordFailure({ employeeId: employee.id }, 'not_member', client, { company_id: companyId });
      throw new ApiError(
        ErrorCode.CompanyNotMember,
        HttpStatus.FORBIDDEN,
        'The account does not belong to this company.',
      );
    }
    await this.assertPasswordLoginAllowed(employee.id, companyId, client);
    const result = await this.recordingAddressRefusal(client, () =>
      this.store.transaction((manager) => this.openSession(manager, employee, companyId, client)),
    );
    this.metrics.login('success');
    return result;
  }

  /** Refuses (and records) a password login into a company that signs its staff in through its provider only. */
  async assertPasswordLoginAllowed(employeeId: number, companyId: number, client: ClientInfo): Promise<void> {
    try {
      await this.policy.assertPasswordLoginAllowed(companyId);
    } catch (error) {
      await this.accounts.recordFailure({ employeeId }, 'sso_required', client, { company_id: companyId });
      throw error;
    }
  }

  /**
   * A login refused for its client address (the company's `ip_allowlist`) is a login attempt like any other:
   * `login.failed` with reason `ip_not_allowed`, recorded after the refused session's transaction rolled back. It
   * counts toward no lock: the person proved who they are, the network is what the company refuses. Every way in
   * that ends in {@link openSession} runs its transaction through here (password, passkey, SSO).
   */
  async recordingAddressRefusal<T>(client: ClientInfo, login: () => Promise<T>): Promise<T> {
    try {
      return await login();
    } catch (error) {
      const refused = typeof error === 'object' && error !== null ? refusedLogins.get(error) : undefined;
      if (refused) {
        const { employeeId, companyId } = refused;
        await this.accounts.recordFailure({ employeeId }, 'ip_not_allowed', client, { company_id: companyId });
      }
      throw error;
    }
  }

  /** Login step 2 of a passkey login: its ticket (single use, 60 s, any instance) stands for both factors. */
  async loginWithTicket(ticket: string, companyId: number, client: ClientInfo): Promise<LoginResult> {
    // Taken by a DELETE of its own: once taken it is spent, whatever happens next (single use on every instance).
    const employeeId = await this.store.transaction((manager) => takeLoginTicket(manager, ticket, this.clock.now()));
    if (employeeId === null) {
      throw new ApiError(
        ErrorCode.LoginTicketInvalid,
        HttpStatus.BAD_REQUEST,
        'The login ticket is unknown, used or expired; start the login again.',
      );
    }
    if (!(await this.memberships.find(employeeId, companyId))) {
      this.metrics.login('not_member', 'passkey');
      await this.accounts.recordFailure({ employeeId }, 'not_member', client, { company_id: companyId });
      throw new ApiError(
        ErrorCode.CompanyNotMember,
        HttpStatus.FORBIDDEN,
        'The account does not belong to this company.',
      );
    }
    // A passkey is not the company's identity provider: an enforced company refuses it as it does a password.
    await this.assertPasswordLoginAllowed(employeeId, companyId, client);
    const result = await this.recordingAddressRefusal(client, () =>
      this.store.transaction(async (manager) => {
        const employee = await employeeById(manager, employeeId);
        return this.openSession(manager, employee!, companyId, client, 'passkey');
      }),
    );
    this.metrics.login('success', 'passkey');
    return result;
  }

  /**
   * A new login session in `companyId` for an employee whose credentials were verified, inside the caller's
   * transaction, with its `login.succeeded` event: the end of a login, and of an accepted invitation.
   */
  async openSession(
    manager: EntityManager,
    employee: Pick<Employee, 'id' | 'email' | 'name'> & { totpEnabledAt?: Date | null },
    companyId: number,
    client: ClientInfo,
    method: LoginMethod = 'password',
    provider: { issuer: string; sub: string; sid: string | null } | null = null,
  ): Promise<LoginResult> {
    const now = this.clock.now();
    const policy = await this.store.policy(manager, companyId);
    try {
      assertAddressAllowed(policy, client.ip);
    } catch (error) {
      refusedLogins.set(error as object, { employeeId: employee.id, companyId });
      throw error;
    }
    const company = await this.store.company(manager, companyId);
    const session: LoginSession = {
      id: randomUUID(),
      employeeId: employee.id,
      companyId,
      createdAt: now,
      lastUsedAt: now,
      method,
      provenAt: now,
      ssoIssuer: provider?.issuer ?? null,
      ssoSub: provider?.sub ?? null,
      ssoSid: provider?.sid ?? null,
      // A password login of an account with TOTP on was asked for its code (AccountCheck).
      secondFactor: method !== 'password' || (employee.totpEnabledAt ?? null) !== null,
      ip: client.ip.slice(0, 64),
      userAgent: client.userAgent?.slice(0, 512) ?? null,
      endedAt: null,
      endReason: null,
    };
    await this.store.insertSession(manager, session);
    const pair = await this.issuer.issue(manager, session, companyId, now, policy.session_days);
    await this.audit.record(manager, {
      type: 'login.succeeded',
      companyId,
      actor: { kind: 'employee', id: employee.id, email: employee.email },
      sessionId: session.id,
      ip: client.ip,
      userAgent: client.userAgent,
      details: { method },
    });
    return toLoginResult(pair, session, company, employee, policy.mfa_required && !session.secondFactor);
  }
}
