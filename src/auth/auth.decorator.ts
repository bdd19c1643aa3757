import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiSecurity } from '@nestjs/swagger';
import type { Permission } from '../permissions/permission';
import type { Principal } from './credentials/principal';

export type AuthRule =
  | { public: true }
  | {
      public: false;
      /** The permission the route needs; none means any valid credential of the company. */
      permission?: Permission;
      /** Login-session routes (logout, switch, sessions, issuing keys) that an API key may not call. */
      jwtOnly?: boolean;
    };

/**
 * The typed metadata behind {@link Public} and {@link Auth}; the guard reads it with
 * `reflector.getAllAndOverride(AuthRuleMetadata, [handler, controller])`. Use the two wrappers on routes.
 */
export const AuthRuleMetadata = Reflector.createDecorator<AuthRule>();

/** No credential needed (login, refresh, health). */
export const Public = () => AuthRuleMetadata({ public: true });

/**
 * The route needs a credential — and `permission`, when given. The OpenAPI document derives the answers this
 * implies (400/401/403) from the same rule (auth-openapi.ts), so they cannot drift apart.
 */
export function Auth(options: { permission?: Permission; jwtOnly?: boolean } = {}) {
  const rule: AuthRule = { public: false, ...options };
  return applyDecorators(AuthRuleMetadata(rule), ApiSecurity('Authorization'));
}

/** The verified principal of the request (set by the auth guard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  return context.getArgByIndex<{ principal: Principal }>(0).principal;
});
