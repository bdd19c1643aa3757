import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { EntityManager } from 'typeorm';
import { discover } from '../../platform/common/discovery/discovered';

/** What a session says about how its person was proven, for a company's rules. */
export interface SessionProof {
  method: 'password' | 'sso' | 'passkey';
  ssoIssuer?: string | null;
  /** The person's e-mail: a provider speaks for it only in a company that has proven its domain. */
  email: string;
}
/**
 * Rules a feature (src/identity/sso/: a company signing its staff in through its identity provider) adds to who may log
 * in where. A provider implementing them and marked {@link LoginRules} is found at start by {@link LoginPolicy},
 * so sessions/ never imports the feature (which opens sessions).
 */
export interface CompanyLoginRules {
  /** 403 error_sso_required when the company signs its staff in through its identity provider only. */
  assertPasswordLoginAllowed(companyId: number, manager?: EntityManager): Promise<void>;
  /** The companies among `companyIds` that require their provider (authenticateinit's `"sso": true`). */
  enforcedAmong(companyIds: number[]): Promise<Set<number>>;
  /**
   * A session entering `companyId` (a switch) or renewed there (a refresh): 403 error_sso_required for a session
   * not opened through a provider, where the company requires its own; 403 error_login_method_not_accepted for
   * one opened through a provider, unless the company's own connection has that issuer and has proven the
   * e-mail's domain.
   */
  assertSessionMayEnter(manager: EntityManager, companyId: number, session: SessionProof): Promise<void>;
  /**
   * Whether the session's proof of its person counts in `companyId` (step-up): a password or passkey proof
   * wherever the session is; a provider's only where that provider speaks for the person (as for a switch).
   */
  sessionCounts(manager: EntityManager, companyId: number, session: SessionProof): Promise<boolean>;
  /**
   * Whether `companyId` may give an existing account a membership without its person's word (SSO sign-in with
   * JIT, SCIM): an account with a password or another company is attached only by a company that has proven its
   * e-mail's domain. The invitation, which its person accepts, is the way to add any other.
   */
  mayAttach(manager: EntityManager, companyId: number, account: { id: number; email: string }): Promise<boolean>;
}

/** Marks a provider as {@link CompanyLoginRules} that {@link LoginPolicy} applies. */
export const LoginRules = DiscoveryService.createDecorator<void>();

/**
 * The one place that decides whose people a company may speak for (docs/contract.md "Whose people a company may
 * speak for", "Company single sign-on"), asked by every way in: password and passkey logins and invitations
 * ({@link assertPasswordLoginAllowed}), the switch and the refresh ({@link assertSessionMayEnter}), step-up
 * ({@link sessionCounts}), SSO sign-in, JIT and SCIM ({@link mayAttach}). It applies every {@link LoginRules}
 * provider of the application, found once at start: a way in is open when each rule set lets it through. An
 * application assembled without any (the operator CLI, which opens no logins) enforces nothing and attaches no
 * account without its person's word.
 */
@Injectable()
export class LoginPolicy implements OnModuleInit {
  private rules: readonly CompanyLoginRules[] = [];

  /** `discovery`: absent only for {@link of}. */
  constructor(private readonly discovery?: DiscoveryService) {}

  /** A policy of fixed rules, for unit tests. */
  static of(rules: readonly CompanyLoginRules[]): LoginPolicy {
    const policy = new LoginPolicy();
    policy.rules = rules;
    return policy;
  }

  onModuleInit(): void {
    if (this.discovery === undefined) return;
    this.rules = discover<CompanyLoginRules, void>(this.discovery, LoginRules).map((found) => found.instance);
  }

  /** See {@link CompanyLoginRules.assertPasswordLoginAllowed}. */
  async assertPasswordLoginAllowed(companyId: number, manager?: EntityManager): Promise<void> {
    for (const rules of this.rules) await rules.assertPasswordLoginAllowed(companyId, manager);
  }

  /** See {@link CompanyLoginRules.enforcedAmong}: a company any rule set names. */
  async enforcedAmong(companyIds: number[]): Promise<Set<number>> {
    const enforced = new Set<number>();
    for (const rules of this.rules) for (const id of await rules.enforcedAmong(companyIds)) enforced.add(id);
    return enforced;
  }

  /** See {@link CompanyLoginRules.assertSessionMayEnter}. */
  async assertSessionMayEnter(manager: EntityManager, companyId: number, session: SessionProof): Promise<void> {
    for (const rules of this.rules) await rules.assertSessionMayEnter(manager, companyId, session);
  }

  /** See {@link CompanyLoginRules.sessionCounts}. */
  async sessionCounts(manager: EntityManager, companyId: number, session: SessionProof): Promise<boolean> {
    for (const rules of this.rules) if (!(await rules.sessionCounts(manager, companyId, session))) return false;
    return true;
  }

  /** See {@link CompanyLoginRules.mayAttach}; without any rules, no account is attached. */
  async mayAttach(manager: EntityManager, companyId: number, account: { id: number; email: string }): Promise<boolean> {
    if (this.rules.length === 0) return false;
    for (const rules of this.rules) if (!(await rules.mayAttach(manager, companyId, account))) return false;
    return true;
  }
}
