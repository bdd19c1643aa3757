import type { EntityManager } from 'typeorm';

/** What a session says about how its person was proven, for a company's rules. */
export interface SessionProof {
  method: 'password' | 'sso' | 'passkey';
  ssoIssuer?: string | null;
  /** The person's e-mail: a provider speaks for it only in a company that has proven its domain. */
  email: string;
}

/**
 * The one place that decides whose people a company may speak for (docs/contract.md "Whose people a company may
 * speak for", "Company single sign-on"), asked by every way in: password and passkey logins and invitations
 * ({@link assertPasswordLoginAllowed}), the switch and the refresh ({@link assertSessionMayEnter}), step-up
 * ({@link sessionCounts}), SSO sign-in, JIT and SCIM ({@link mayAttach}). Declared here, where sessions open, and
 * bound by the composition root to src/sso/'s implementation, so that sessions does not import sso (which opens
 * sessions). Without a binding nothing is enforced and nothing attached.
 */
export abstract class LoginPolicy {
  /** 403 error_sso_required when the company signs its staff in through its identity provider only. */
  abstract assertPasswordLoginAllowed(companyId: number, manager?: EntityManager): Promise<void>;
  /** The companies among `companyIds` that require their provider (authenticateinit's `"sso": true`). */
  abstract enforcedAmong(companyIds: number[]): Promise<Set<number>>;
  /**
   * A session entering `companyId` (a switch) or renewed there (a refresh): 403 error_sso_required for a session
   * not opened through a provider, where the company requires its own; 403 error_login_method_not_accepted for
   * one opened through a provider, unless the company's own connection has that issuer and has proven the
   * e-mail's domain.
   */
  abstract assertSessionMayEnter(manager: EntityManager, companyId: number, session: SessionProof): Promise<void>;
  /**
   * Whether the session's proof of its person counts in `companyId` (step-up): a password or passkey proof
   * wherever the session is; a provider's only where that provider speaks for the person (as for a switch).
   */
  abstract sessionCounts(manager: EntityManager, companyId: number, session: SessionProof): Promise<boolean>;
  /**
   * Whether `companyId` may give an existing account a membership without its person's word (SSO sign-in with
   * JIT, SCIM): an account with a password or another company is attached only by a company that has proven its
   * e-mail's domain. The invitation, which its person accepts, is the way to add any other.
   */
  abstract mayAttach(
    manager: EntityManager,
    companyId: number,
    account: { id: number; email: string },
  ): Promise<boolean>;
}

/** No company enforces anything, and no account is attached: the binding for apps assembled without src/sso/. */
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

  sessionCounts(): Promise<boolean> {
    return Promise.resolve(true);
  }

  mayAttach(): Promise<boolean> {
    return Promise.resolve(false);
  }
}
