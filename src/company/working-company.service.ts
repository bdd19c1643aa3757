import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { requestContext } from '../audit/audit-actor';
import { AuditRecorder } from '../audit/audit-recorder.service';
import type { Principal } from '../auth/credentials/principal';
import { RevocationBus } from '../auth/credentials/revocation-bus';
import type { LoginResult } from '../auth/login-result';
import { TokenIssuer } from '../auth/tokens/token-issuer.service';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { ClientInfo } from '../common/http/client-info';
import { Membership } from '../membership/membership.entity';
import { MembershipService } from '../membership/membership.service';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../rate-limit/storage/rate-limit-storage';
import { LoginSession } from '../sessions/login-session.entity';

/** contract.md: at most 10 working-company switches per 60 seconds per employee. */
export const SWITCH_LIMIT = 10;
export const SWITCH_WINDOW_MS = 60_000;

const blacklisted = (message: string) => new ApiError(ErrorCode.JwtBlacklisted, HttpStatus.BAD_REQUEST, message);

export interface AccountCompany {
  id: number;
  name: string;
  current: boolean;
}

/** The company a session works in: switching it, and the companies it could switch to. */
@Injectable()
export class WorkingCompanyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly issuer: TokenIssuer,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
    private readonly memberships: MembershipService,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: RateLimitStorage,
    private readonly audit: AuditRecorder,
  ) {}

  /** Moves the session to another company: same session and login time, a new token, the old one blacklisted. */
  async switchCompany(principal: Principal, companyId: number, client: ClientInfo): Promise<LoginResult> {
    const attempts = await this.counters.increment(
      `company-switch:${principal.employeeId}`,
      SWITCH_WINDOW_MS,
      SWITCH_LIMIT,
      0,
      'company-switch',
    );
    if (attempts.isBlocked) {
      throw ApiError.accountRateLimited(attempts.timeToBlockExpire, 'Too many company switches; try again later.');
    }
    const now = this.clock.now();
    const result = await this.dataSource.transaction(async (manager) => {
      const member = await manager.findOneBy(Membership, { employeeId: principal.employeeId, companyId });
      if (!member) {
        throw new ApiError(
          ErrorCode.CompanyNotMember,
          HttpStatus.FORBIDDEN,
          'The account does not belong to this company.',
        );
      }
      const session = await manager.findOne(LoginSession, {
        where: { id: principal.sessionId!, endedAt: IsNull() },
        lock: { mode: 'pessimistic_write' },
      });
      if (!session) throw blacklisted('The session has ended.');
      const revoked = await this.issuer.revoke(manager, { id: principal.credentialId }, 'company_switch', now);
      if (revoked !== 1) throw blacklisted('This token has already been replaced.');
      await manager.update(LoginSession, { id: session.id }, { companyId, lastUsedAt: now });
      const switched = await this.issuer.issueLoginResult(manager, { ...session, companyId }, companyId, now);
      // In both companies: each one's administrators see the session arrive or leave.
      const companies = [...new Set([principal.companyId, companyId])];
      await this.audit.record(
        manager,
        companies.map((id) => ({
          type: 'company.switched' as const,
          companyId: id,
          ...requestContext(principal, client),
          details: { from_company_id: principal.companyId, to_company_id: companyId },
        })),
      );
      return switched;
    });
    await this.bus.publish({ type: 'token', tokenId: principal.credentialId });
    return result;
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
