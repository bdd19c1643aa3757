import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiSecurity } from '@nestjs/swagger';
import type { Grant } from '../permissions/permission';
import type { Principal } from './principal';

export type AuthRule =
  | {
      public: true;
      /**
       * The route's own guard that checks a credential of another kind (SCIM's bearer tokens): the global guard
       * asks for no JWT or API key, and the route table names who does.
       */
      by?: string;
    }
  | {
      public: false;
      /**
       * The permission the route needs; none means any valid credential of the company. `*` itself: only a holder
       * of every permission (what can speak for every member, such as the company's SSO connection).
       */
      permission?: Grant;
      /** Login-session routes (logout, switch, sessions, issuing keys) that an API key may not call. */
      jwtOnly?: boolean;
      /** Service-to-service routes (token introspection) that a login token may not call. */
      apiKeyOnly?: boolean;
      /**
       * Step-up: a login token's session must have proven its person within {@link STEP_UP_WINDOW_MS}
       * (401 error_reauthentication_required otherwise). An API key has no person to prove and is not asked;
       * add `jwtOnly` where an API key must not call the route at all.
       */
      stepUp?: boolean;
    };

/** docs/contract.md, Passkeys and step-up: a proof of the person counts for 15 minutes. */
export const STEP_UP_WINDOW_MS = 15 * 60 * 1000;

/**
 * The typed metadata behind {@link Public} and {@link Auth}; the guard reads it with
 * `reflector.getAllAndOverride(AuthRuleMetadata, [handler, controller])`. Use the two wrappers on routes.
 */
export const AuthRuleMetadata = Reflector.createDecorator<AuthRule>();

/** No credential needed (login, refresh, health). */
export const Public = () => AuthRuleMetadata({ public: true });

/**
 * Routes whose callers are other systems with a credential of their own (SCIM clients send `Bearer <token>`):
 * outside the JWT and API-key strategies, so the global guard treats them as public (the query-string
 * credential is still refused), and the controller's own guard, named here, admits them.
 */
export const OwnCredential = (by: string) => AuthRuleMetadata({ public: true, by });

/**
 * The route needs a credential — and `permission`, when given. The OpenAPI document derives the answers this
 * implies (400/401/403) from the same rule (auth-openapi.ts), so they cannot drift apart.
 */
export function Auth(options: { permission?: Grant; jwtOnly?: boolean; apiKeyOnly?: boolean; stepUp?: boolean } = {}) {
  const rule: AuthRule = { public: false, ...options };
  return applyDecorators(AuthRuleMetadata(rule), ApiSecurity('Authorization'));
}

/** The verified principal of the request (set by the auth guard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  return context.getArgByIndex<{ principal: Principal }>(0).principal;
});
