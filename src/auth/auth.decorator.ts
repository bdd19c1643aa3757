import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorBodySchema } from '../common/errors/error-body.schema';
import type { Permission } from '../membership/permission';
import type { Principal } from './credentials/principal';

export const AUTH_RULE = 'auth:rule';

export type AuthRule =
  | { public: true }
  | {
      public: false;
      /** The permission the route needs; none means any valid credential of the company. */
      permission?: Permission;
      /** Login-session routes (logout, switch, sessions, issuing keys) that an API key may not call. */
      jwtOnly?: boolean;
    };

/** No credential needed (login, refresh, health). */
export const Public = () => SetMetadata(AUTH_RULE, { public: true } satisfies AuthRule);

/**
 * The route needs a credential — and `permission`, when given — and documents that in OpenAPI (the raw
 * `Authorization` header, and the 400/401/403 answers), so the rule and its documentation cannot drift apart.
 */
export function Auth(options: { permission?: Permission; jwtOnly?: boolean } = {}) {
  const rule: AuthRule = { public: false, ...options };
  const needs = [
    options.jwtOnly ? 'a login token (JWT), not an API key' : 'a JWT or an API key',
    options.permission ? `with the permission \`${options.permission}\`` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return applyDecorators(
    SetMetadata(AUTH_RULE, rule),
    ApiSecurity('Authorization'),
    ApiUnauthorizedResponse({
      description:
        'error_jwt_is_required (no Authorization header), error_jwt_hash_not_found (unknown, malformed or ' +
        'Bearer-prefixed credential), error_jwt_query_not_allowed (credential in __jwtAuthorization)',
      type: ErrorBodySchema,
    }),
    ApiBadRequestResponse({
      description: 'error_jwt_blacklisted (logged out, switched company, revoked), error_jwt_expired, error_validation',
      type: ErrorBodySchema,
    }),
    ApiForbiddenResponse({ description: `error_permission_denied: the route needs ${needs}`, type: ErrorBodySchema }),
  );
}

/** The verified principal of the request (set by the auth guard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  return context.switchToHttp().getRequest<{ principal: Principal }>().principal;
});
