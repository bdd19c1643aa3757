import { randomUUID } from 'node:crypto';
import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import { Company } from '../company/company.entity';
import type { Employee } from '../employee/employee.entity';
import { EmployeeService } from '../employee/employee.service';
import { PasswordHasher } from '../employee/password-hasher';
import { MembershipService } from '../membership/membership.service';
import { appMetrics } from '../metrics/app-metrics';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../counters/rate-limit-storage';
import { sha256Hex } from './credentials/sha256';
import { type LoginResult, toLoginResult } from './login-result';
import { LoginSession } from '../sessions/login-session.entity';
import { TokenIssuer } from './tokens/token-issuer.service';

/**
 * contract.md: 10 failures for one e-mail within 15 minutes lock that e-mail until the 15 minutes pass. A count,
 * not a rate, so a fixed window of the counters (hitWindow) rather than a leaky bucket.
 */
export const FAILED_LOGIN_LIMIT = 10;
export const FAILED_LOGIN_WINDOW_MS = 15 * 60 * 1000;

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

/** The two-step login: credentials → the account's companies → a token bound to the chosen one. */
@Injectable()
export class LoginService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly employees: EmployeeService,
    private readonly memberships: MembershipService,
    private readonly hasher: PasswordHasher,
    private readonly issuer: TokenIssuer,
    private readonly clock: Clock,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: RateLimitStorage,
  ) {}

  async listCompanies(email: string, password: string): Promise<Array<{ id: number; name: string }>> {
    const employee = await this.checkCredentials(email, password);
    const memberships = await this.memberships.companiesOf(employee.id);
    return memberships.map(({ company }) => ({ id: company!.id, name: company!.name }));
  }

  async login(email: string, password: string, companyId: number, client: ClientInfo): Promise<LoginResult> {
    const employee = await this.checkCredentials(email, password);
    const membership = await this.memberships.find(employee.id, companyId);
    if (!membership) {
      appMetrics.login('not_member');
      throw new ApiError(
        ErrorCode.CompanyNotMember,
        HttpStatus.FORBIDDEN,
        'The account does not belong to this company.',
      );
    }
    const now = this.clock.now();
    const result = await this.dataSource.transaction(async (manager) => {
      const company = await manager.findOneByOrFail(Company, { id: companyId });
      const session = manager.create(LoginSession, {
        id: randomUUID(),
        employeeId: employee.id,
        companyId,
        createdAt: now,
        lastUsedAt: now,
        ip: client.ip.slice(0, 64),
        userAgent: client.userAgent?.slice(0, 512) ?? null,
        endedAt: null,
        endReason: null,
      });
      await manager.insert(LoginSession, session);
      const pair = await this.issuer.issue(manager, session, companyId, now);
      return toLoginResult(pair, session, company, employee);
    });
    appMetrics.login('success');
    return result;
  }

  /**
   * The same answer, in about the same time, for an unknown e-mail and a wrong password. Locked-out e-mails
   * are refused before any password is checked, whether or not they exist.
   */
  private async checkCredentials(email: string, password: string): Promise<Employee> {
    const lockKey = `login-failures:${sha256Hex(email.trim().toLowerCase())}`;
    const failures = await this.counters.peekWindow(lockKey, FAILED_LOGIN_WINDOW_MS, FAILED_LOGIN_LIMIT);
    // While Redis is away the storage counts this instance's share of the limit only (record.limit).
    if (failures.hits >= (failures.limit ?? FAILED_LOGIN_LIMIT)) {
      appMetrics.login('locked');
      throw ApiError.accountRateLimited(
        failures.secondsLeft,
        'Too many failed logins for this e-mail; try again later.',
      );
    }

    const employee = await this.employees.findWithPasswordHash(email);
    const valid = employee
      ? await this.hasher.verify(employee.passwordHash, password)
      : await this.hasher.verifyAgainstDummy(password);
    if (!employee || !valid) {
      await this.counters.hitWindow(lockKey, FAILED_LOGIN_WINDOW_MS, FAILED_LOGIN_LIMIT);
      appMetrics.login('invalid_credentials');
      throw new ApiError(ErrorCode.InvalidCredentials, HttpStatus.UNAUTHORIZED, 'The e-mail or password is wrong.');
    }
    await this.counters.reset(lockKey);
    return employee;
  }
}
