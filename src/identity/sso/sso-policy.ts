import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import type { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { isClaimedAccount } from '../../accounts/membership/membership-grants';
import { endSessionsNotThrough } from '../sessions/end-sessions';
import { type CompanyLoginRules, LoginRules, type SessionProof } from '../sessions/login-policy';
import { enforcedCompanies, hasProvenDomain, signInRuleOf } from './sso-connections';

export const ssoRequired = () =>
  new ApiError(
    ErrorCode.SsoRequired,
    HttpStatus.FORBIDDEN,
    "This company signs its staff in through its identity provider only: use your company's single sign-on.",
  );

const methodNotAccepted = () =>
  new ApiError(
    ErrorCode.LoginMethodNotAccepted,
    HttpStatus.FORBIDDEN,
    "This session signed in through another company's identity provider, which this company does not trust; " +
      'log in to this company directly.',
  );

/**
 * docs/contract.md "Whose people a company may speak for": a company's provider speaks for the e-mails of the
 * domains that company has proven, and for nobody else. So a session opened through a provider is good only in
 * the companies whose own connection has that issuer and has proven the e-mail's domain; `enforced: true` closes
 * every other way into the company (password, passkey, invitation, a switch from another kind of session); and
 * an account that is already someone's is attached only by the company that has proven its domain.
 */
@LoginRules()
@Injectable()
export class SsoPolicy implements CompanyLoginRules {
  constructor(private readonly dataSource: DataSource) {}

  async assertPasswordLoginAllowed(companyId: number, manager: EntityManager = this.dataSource.manager): Promise<void> {
    const rule = await signInRuleOf(manager, companyId);
    if (rule?.enforced) throw ssoRequired();
  }

  async enforcedAmong(companyIds: number[]): Promise<Set<number>> {
    return new Set(await enforcedCompanies(this.dataSource.manager, companyIds));
  }

  async assertSessionMayEnter(manager: EntityManager, companyId: number, session: SessionProof): Promise<void> {
    if (session.method === 'sso') {
      if (!(await this.providerSpeaksFor(manager, companyId, session))) throw methodNotAccepted();
      return;
    }
    const rule = await signInRuleOf(manager, companyId);
    if (rule?.enforced) throw ssoRequired();
  }

  /**
   * A password or passkey proof is the person's own, wherever the session is (the caller who turned enforcement
   * on keeps its session, and its step-up, until expiry); a provider's only where that provider speaks for them.
   */
  async sessionCounts(manager: EntityManager, companyId: number, session: SessionProof): Promise<boolean> {
    return session.method !== 'sso' || this.providerSpeaksFor(manager, companyId, session);
  }

  private async providerSpeaksFor(manager: EntityManager, companyId: number, session: SessionProof): Promise<boolean> {
    const rule = await signInRuleOf(manager, companyId);
    if (rule === null || rule.issuer !== session.ssoIssuer) return false;
    return hasProvenDomain(manager, companyId, session.email);
  }

  async mayAttach(manager: EntityManager, companyId: number, account: { id: number; email: string }): Promise<boolean> {
    if (!(await isClaimedAccount(manager, account.id, companyId))) return true;
    return hasProvenDomain(manager, companyId, account.email);
  }
}

/**
 * `enforced: true` saved by `caller`: the company's other sessions that were not opened through its provider end
 * (one `session.revoked` each, `details.reason: "sso_enforced"`), inside the caller's transaction; the caller's own
 * goes on until it expires, and the policy above refuses to renew it. Answers the ended sessions' ids, for the
 * caller to announce on the revocation bus once committed (every instance then refuses their tokens).
 */
export async function endSessionsOutsideProvider(
  manager: EntityManager,
  audit: AuditRecorder,
  enforced: { companyId: number; issuer: string },
  caller: Principal,
  client: ClientInfo,
  now: Date,
): Promise<string[]> {
  const ended = await endSessionsNotThrough(manager, enforced.companyId, enforced.issuer, caller.sessionId, now);
  await audit.record(
    manager,
    ended.map((session) => ({
      type: 'session.revoked' as const,
      companyId: enforced.companyId,
      ...requestContext(caller, client),
      subject: { kind: 'session' as const, id: session.id, email: session.email },
      details: { reason: 'sso_enforced' },
    })),
  );
  return ended.map((session) => session.id);
}
