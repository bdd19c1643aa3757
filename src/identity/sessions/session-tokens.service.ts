import { HttpStatus, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { Principal } from '../../access/rules/principal';
import { assertAddressAllowed } from './company-policy-gate';
import { type LoginResult, toLoginResult } from './login-result';
import { LoginPolicy } from './login-policy';
import type { LoginSession } from './login-session.entity';
import { SessionStore } from './session-store';
import { TokenIssuer } from './token-issuer.service';

const blacklisted = (message: string) => new ApiError(ErrorCode.JwtBlacklisted, HttpStatus.BAD_REQUEST, message);

/**
 * New tokens for an existing session: the company switch and the refresh rotation's renewal. Each checks the
 * membership once, in the transaction that blacklists the previous token and records the new one.
 */
@Injectable()
export class SessionTokens {
  constructor(
    private readonly store: SessionStore,
    private readonly issuer: TokenIssuer,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly policy: LoginPolicy = LoginPolicy.of([]),
  ) {}

  /**
   * Moves the caller's session to another company: same session and login time, a new token, the old one
   * blacklisted (and forgotten by every instance before this returns), `company.switched` in both companies.
   */
  async switchCompany(principal: Principal, companyId: number, client: ClientInfo): Promise<LoginResult> {
    const now = this.clock.now();
    const result = await this.store.transaction(async (manager) => {
      const member = await this.store.member(manager, principal.employeeId, companyId);
      if (!member) {
        throw new ApiError(
          ErrorCode.CompanyNotMember,
          HttpStatus.FORBIDDEN,
          'The account does not belong to this company.',
        );
      }
      const session = await this.store.lockLiveSession(manager, principal.sessionId!);
      if (!session) throw blacklisted('The session has ended.');
      const policy = await this.store.policy(manager, companyId);
      assertAddressAllowed(policy, client.ip);
      await this.policy.assertSessionMayEnter(manager, companyId, { ...session, email: member.employee.email });
      const revoked = await this.issuer.revoke(manager, { id: principal.credentialId }, 'company_switch', now);
      if (revoked !== 1) throw blacklisted('This token has already been replaced.');
      await this.store.moveSession(manager, session.id, companyId, now);
      const pair = await this.issuer.issue(manager, session, companyId, now, policy.session_days);
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
      return toLoginResult(
        pair,
        session,
        member.company,
        member.employee,
        policy.mfa_required && !session.secondFactor,
      );
    });
    await this.bus.publish({ type: 'token', tokenId: principal.credentialId });
    return result;
  }

  /**
   * A new token for a session in its working company, inside the caller's transaction (the refresh rotation);
   * refused as blacklisted when the account no longer belongs to the company, and as a switch into it would be
   * when the company's rules no longer admit the session (enforcement turned on, its provider changed).
   */
  async renew(manager: EntityManager, session: LoginSession, now: Date, client?: ClientInfo): Promise<LoginResult> {
    const member = await this.store.member(manager, session.employeeId, session.companyId);
    if (!member) throw blacklisted('The account no longer belongs to this company.');
    const policy = await this.store.policy(manager, session.companyId);
    if (client) assertAddressAllowed(policy, client.ip);
    await this.policy.assertSessionMayEnter(manager, session.companyId, { ...session, email: member.employee.email });
    const pair = await this.issuer.issue(manager, session, session.companyId, now, policy.session_days);
    return toLoginResult(pair, session, member.company, member.employee, policy.mfa_required && !session.secondFactor);
  }
}
