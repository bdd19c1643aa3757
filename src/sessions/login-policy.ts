import type { EntityManager } from 'typeorm';

/** What a session says about how it signed in, for a company's policy. */
export interface SessionProof {
  method: 'password' | 'sso' | 'passkey';
  ssoIssuer?: string | null;
}

/**
 * A company's rule on how its staff sign in (docs/contract.md "Company single sign-on": `enforced`). Declared
 * here, where logins happen, and bound by the composition root to src/sso/'s implementation, so that sessions
 * does not import sso (which opens sessions). Without a binding nothing is enforced.
 */
export abstract class LoginPolicy {
  /** 403 error_sso_required when the company signs its staff in through its identity provider only. */
  abstract assertPasswordLoginAllowed(companyId: number, manager?: EntityManager): Promise<void>;
  /** The companies among `companyIds` that require their provider (authenticateinit's `"sso": true`). */
  abstract enforcedAmong(companyIds: number[]): Promise<Set<number>>;
  /** A switch into `companyId`: refused unless the session signed in through that company's provider. */
  abstract assertSessionMayEnter(manager: EntityManager, companyId: number, session: SessionProof): Promise<void>;
}

/** No company enforces anything: the binding for apps and tests assembled without src/sso/. */
export class OpenLoginPolicy extends LoginPolicy {
  assertPasswordLoginAllowed(): Promise<void> {
    return Promise.resolve();
  }

  enforcedAmong(): Promise<Set<number>> {
    return Promise.resolve(new Set());
  }

  assertSessionMayEnter(): Promise<void> {
    return Promise.resolve();
  }
}
