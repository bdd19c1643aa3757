import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ANONYMOUS } from '../../audit/recorder/audit-actor';
import type { LoginFailureReason } from '../../audit/recorder/audit-event';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { AppMetrics, type LoginMetricMethod } from '../../platform/common/metrics/app-metrics';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../../platform/counters/rate-limit-storage';
import type { Employee } from '../../accounts/employee/employee.entity';
import { EmployeeService } from '../../accounts/employee/employee.service';
import { PasswordHasher } from '../../accounts/employee/password-hasher';
import { sha256Hex } from './credentials/sha256';
import { SecondFactorService, type SecondFactorInput } from './mfa/second-factor.service';

/**
 * docs/contract.md: 10 failures for one e-mail within 15 minutes lock that e-mail until the 15 minutes pass. A count,
 * not a rate, so a fixed window of the counters (hitWindow) rather than a leaky bucket.
 */
export const FAILED_LOGIN_LIMIT = 10;
export const FAILED_LOGIN_WINDOW_MS = 15 * 60 * 1000;

/** The details naming the company an attempt was made into, when it names one. */
const into = (companyId: number | undefined) => (companyId === undefined ? {} : { company_id: companyId });

const lockKeyOf = (email: string) => `login-failures:${sha256Hex(email.trim().toLowerCase())}`;

/**
 * Proving who one is with an e-mail, a password and (when on) a second factor, under the e-mail's lock: what a
 * login, an invitation accepted with an existing account and an account change before it is made all check.
 * It opens no session; src/identity/sessions/ does that once this has passed.
 */
@Injectable()
export class AccountCheck {
  constructor(
    private readonly dataSource: DataSource,
    private readonly employees: EmployeeService,
    private readonly hasher: PasswordHasher,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: RateLimitStorage,
    private readonly audit: AuditRecorder,
    private readonly secondFactor: SecondFactorService,
    private readonly metrics: AppMetrics,
  ) {}

  /**
   * The password, then the second factor when the account has TOTP on: what a login and an invitation accepted
   * with an existing account both prove.
   */
  async verifyAccount(
    email: string,
    password: string,
    client: ClientInfo,
    secondFactor: SecondFactorInput,
    companyId?: number,
  ): Promise<Employee> {
    const employee = await this.checkCredentials(email, password, client, companyId);
    if (employee.totpEnabledAt === null) return employee;
    // checkCredentials has just refused a locked e-mail: the lock is not read a second time.
    await this.checkSecondFactor(employee, secondFactor, client, companyId);
    return employee;
  }

  /**
   * The one check of a second factor, wherever a route takes `otp` or `recovery_code` (login, invitation
   * acceptance, turning TOTP on or off): a locked e-mail is refused before the code is looked at, a wrong or
   * missing code counts toward the e-mail's login lock and records `login.failed` like a wrong password, and the
   * lock's count is cleared only once both factors passed, so a known password does not reopen guessing.
   * Outside the caller's transaction on purpose: a refused code must stay counted and recorded.
   */
  async proveSecondFactor(
    account: Pick<Employee, 'id' | 'email'>,
    input: SecondFactorInput,
    client: ClientInfo,
    companyId?: number,
  ): Promise<void> {
    await this.refuseWhileLocked(lockKeyOf(account.email), { employeeId: account.id }, client, 'password', companyId);
    await this.checkSecondFactor(account, input, client, companyId);
  }

  /** {@link proveSecondFactor} once the lock was found open. */
  private async checkSecondFactor(
    account: Pick<Employee, 'id' | 'email'>,
    input: SecondFactorInput,
    client: ClientInfo,
    companyId?: number,
  ): Promise<void> {
    const lockKey = lockKeyOf(account.email);
    const outcome = await this.secondFactor.check(account.id, input);
    if (outcome === 'missing') {
      await this.recordFailure({ employeeId: account.id }, 'otp_required', client, into(companyId));
      throw new ApiError(
        ErrorCode.OtpRequired,
        HttpStatus.UNAUTHORIZED,
        'This account needs a one-time code (otp) or a recovery code (recovery_code).',
      );
    }
    if (outcome === 'invalid') {
      await this.counters.hitWindow(lockKey, FAILED_LOGIN_WINDOW_MS, FAILED_LOGIN_LIMIT);
      this.metrics.login('invalid_credentials');
      await this.recordFailure({ employeeId: account.id }, 'otp_invalid', client, into(companyId));
      throw new ApiError(
        ErrorCode.OtpInvalid,
        HttpStatus.UNAUTHORIZED,
        'The one-time code or recovery code is not valid.',
      );
    }
    await this.counters.reset(lockKey);
  }

  /**
   * A passkey's signature for `account` (`verify` checks it), under the account's login lock: refused while locked,
   * and a failure counts toward the lock and records `login.failed` (`passkey_invalid`) like a wrong password.
   * A passkey is both factors, so a success clears the count.
   */
  async provePasskey(
    account: Pick<Employee, 'id' | 'email'>,
    verify: () => Promise<boolean>,
    client: ClientInfo,
  ): Promise<void> {
    const lockKey = lockKeyOf(account.email);
    await this.refuseWhileLocked(lockKey, { employeeId: account.id }, client, 'passkey');
    if (!(await verify())) {
      await this.counters.hitWindow(lockKey, FAILED_LOGIN_WINDOW_MS, FAILED_LOGIN_LIMIT);
      this.metrics.login('invalid_credentials', 'passkey');
      await this.recordFailure({ employeeId: account.id }, 'passkey_invalid', client);
      throw new ApiError(ErrorCode.InvalidCredentials, HttpStatus.UNAUTHORIZED, 'The passkey could not be verified.');
    }
    await this.counters.reset(lockKey);
  }

  /**
   * The same answer, in about the same time, for an unknown e-mail and a wrong password. Locked-out e-mails
   * are refused before any password is checked, whether or not they exist. Also the check of a current password
   * before an account change (which therefore counts toward the same lock).
   */
  async checkCredentials(email: string, password: string, client: ClientInfo, companyId?: number): Promise<Employee> {
    const lockKey = lockKeyOf(email);
    await this.refuseWhileLocked(lockKey, { email }, client, 'password', companyId);

    const employee = await this.employees.findWithPasswordHash(email);
    const valid = employee
      ? await this.hasher.verify(employee.passwordHash, password)
      : await this.hasher.verifyAgainstDummy(password);
    if (!employee || !valid) {
      await this.counters.hitWindow(lockKey, FAILED_LOGIN_WINDOW_MS, FAILED_LOGIN_LIMIT);
      this.metrics.login('invalid_credentials');
      // By e-mail even when the account is known, so an unknown e-mail costs the same statement (0 rows).
      await this.recordFailure({ email }, 'invalid_credentials', client, into(companyId));
      throw new ApiError(ErrorCode.InvalidCredentials, HttpStatus.UNAUTHORIZED, 'The e-mail or password is wrong.');
    }
    // With TOTP on, the count is cleared only after the second factor (verifyAccount).
    if (employee.totpEnabledAt === null) await this.counters.reset(lockKey);
    return employee;
  }

  private async refuseWhileLocked(
    lockKey: string,
    account: { employeeId: number } | { email: string },
    client: ClientInfo,
    method: LoginMetricMethod = 'password',
    companyId?: number,
  ): Promise<void> {
    const failures = await this.counters.peekWindow(lockKey, FAILED_LOGIN_WINDOW_MS, FAILED_LOGIN_LIMIT);
    // While Redis is away the storage counts this instance's share of the limit only (record.limit).
    if (failures.hits < (failures.limit ?? FAILED_LOGIN_LIMIT)) return;
    this.metrics.login('locked', method);
    await this.recordFailure(account, 'locked', client, into(companyId));
    throw ApiError.accountRateLimited(failures.secondsLeft, 'Too many failed logins for this e-mail; try again later.');
  }

  /**
   * `login.failed`: in the company the attempt names (`details.company_id`) when the account belongs to it, for
   * what happens in one company is that company's alone (docs/contract.md "Whose people a company may speak
   * for"); in every company of the account for an attempt that names none (login step 1) or one it is no member
   * of; for an e-mail with no account, only counted.
   */
  async recordFailure(
    account: { employeeId: number } | { email: string },
    reason: LoginFailureReason,
    client: ClientInfo,
    details: { company_id?: number } & Record<string, unknown> = {},
  ): Promise<void> {
    await this.audit.recordForAccount(
      this.dataSource.manager,
      account,
      {
        type: 'login.failed',
        actor: ANONYMOUS,
        ip: client.ip,
        userAgent: client.userAgent,
        details: { reason, ...details },
      },
      details.company_id,
    );
  }
}
