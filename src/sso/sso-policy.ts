import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import { LoginPolicy, type SessionProof } from '../sessions/login-policy';
import { enforcedCompanies, signInRuleOf } from './sso-connections';

export const ssoRequired = () =>
  new ApiError(
    ErrorCode.SsoRequired,
    HttpStatus.FORBIDDEN,
    "This company signs its staff in through its identity provider only: use your company's single sign-on.",
  );

/**
 * `enforced: true` closes every other way into the company: password login, passkey login, invitation
 * acceptance, and a switch from a session that did not sign in through the company's provider (same issuer).
 */
@Injectable()
export class SsoPolicy extends LoginPolicy {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async assertPasswordLoginAllowed(companyId: number, manager: EntityManager = this.dataSource.manager): Promise<void> {
    const rule = await signInRuleOf(manager, companyId);
    if (rule?.enforced) throw ssoRequired();
  }

  async enforcedAmong(companyIds: number[]): Promise<Set<number>> {
    return new Set(await enforcedCompanies(this.dataSource.manager, companyIds));
  }

  async assertSessionMayEnter(manager: EntityManager, companyId: number, session: SessionProof): Promise<void> {
    const rule = await signInRuleOf(manager, companyId);
    if (!rule?.enforced) return;
    if (session.method === 'sso' && session.ssoIssuer === rule.issuer) return;
    throw ssoRequired();
  }
}
