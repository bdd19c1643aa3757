import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../access/rules/principal';
import type { LoginResult } from './login-result';
import { SessionTokens } from './session-tokens.service';
import { ApiError } from '../../platform/common/errors/api-error';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../../platform/counters/rate-limit-storage';
import { MembershipService } from '../../accounts/membership/membership.service';

/**
 * docs/contract.md: at most 10 working-company switches per 60 seconds per employee, as a leaky bucket of capacity
 * 10 that drains one switch every 6 seconds (10 per 60 s).
 */
export const SWITCH_LIMIT = 10;
export const SWITCH_DRAIN_MS = 60_000;

export interface AccountCompany {
  id: number;
  name: string;
  current: boolean;
}

/** The company a session works in: switching it, and the companies it could switch to. */
@Injectable()
export class CompanySwitchService {
  constructor(
    private readonly sessionTokens: SessionTokens,
    private readonly memberships: MembershipService,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: RateLimitStorage,
  ) {}

  /**
   * Moves the session to another company once the employee's switch bucket has room; the token exchange
   * (membership check, old token blacklisted, new one issued) is one transaction of the session side.
   */
  async switchCompany(principal: Principal, companyId: number, client: ClientInfo): Promise<LoginResult> {
    const attempts = await this.counters.increment(
      `company-switch:${principal.employeeId}`,
      SWITCH_DRAIN_MS,
      SWITCH_LIMIT,
      0,
      'company-switch',
    );
    if (attempts.isBlocked) {
      throw ApiError.accountRateLimited(attempts.timeToBlockExpire, 'Too many company switches; try again later.');
    }
    return this.sessionTokens.switchCompany(principal, companyId, client);
  }

  /** The account's companies by name, the principal's own marked current. */
  async companiesOf(principal: Principal): Promise<AccountCompany[]> {
    const memberships = await this.memberships.companiesOf(principal.employeeId);
    return memberships.map(({ company }) => ({
      id: company!.id,
      name: company!.name,
      current: company!.id === principal.companyId,
    }));
  }
}
