import { CanActivate, ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { type PlanPart, type RoutePlan, RoutePlans } from '../../platform/common/http/route-plan';
import { grants } from '../../access/permissions/permission';
import { type AuthRule, AuthRuleMetadata, STEP_UP_WINDOW_MS } from '../../access/rules/auth.decorator';
import { clientOf } from '../../platform/common/http/client-info';
import { ipNotAllowed, mfaEnrollmentRequired } from '../../accounts/company-policy/policy-errors';
import { missingHint, notFoundHint } from './credential-hints';
import { CredentialService } from './credentials/credential.service';
import type { CredentialVerdict, Principal } from '../../access/rules/principal';

/** Each refusal of docs/contract.md's credential rules; the header, for a hint that fits what was sent. */
const REFUSALS: Record<Exclude<CredentialVerdict['status'], 'valid'>, (header?: unknown) => ApiError> = {
  query_not_allowed: () =>
    new ApiError(
      ErrorCode.JwtQueryNotAllowed,
      HttpStatus.UNAUTHORIZED,
      'Credentials are not accepted in the query string; send them in the Authorization header.',
    ),
  missing: (header) => new ApiError(ErrorCode.JwtIsRequired, HttpStatus.UNAUTHORIZED, missingHint(header)),
  not_found: (header) => new ApiError(ErrorCode.JwtHashNotFound, HttpStatus.UNAUTHORIZED, notFoundHint(header)),
  blacklisted: () =>
    new ApiError(
      ErrorCode.JwtBlacklisted,
      HttpStatus.BAD_REQUEST,
      'The credential has been revoked (logout, company switch or revocation).',
    ),
  expired: () => new ApiError(ErrorCode.JwtExpired, HttpStatus.BAD_REQUEST, 'The token has expired; refresh it.'),
};

/**
 * docs/contract.md "Company policies and roles": what a session restricted to enrolling a second factor may still
 * call: /v1/users/me, its mfa/* and passkeys* routes, and logout.
 */
function opensToEnrollment(path: string): boolean {
  return (
    path === '/v1/users/me' ||
    path.startsWith('/v1/users/me/mfa/') ||
    path.startsWith('/v1/users/me/passkeys') ||
    path === '/v1/users/logout'
  );
}

const reauthenticationRequired = () =>
  new ApiError(
    ErrorCode.ReauthenticationRequired,
    HttpStatus.UNAUTHORIZED,
    'This action needs you to prove who you are again: POST /v1/users/me/reauthenticate, then retry.',
  );

const permissionDenied = (message: string) => new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, message);

/**
 * The one guard for every route: it reads the route's {@link AuthRule} (its piece of the route plan, compiled at
 * start) and refuses what docs/contract.md says to refuse. A route without a rule is refused too (fail closed); a
 * test makes sure no route ships without one.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** The guard's piece of every route plan: the route's access rule, the handler's else its controller's. */
  readonly access: PlanPart<AuthRule | undefined>;
  /** Whether a session restricted to enrolling a second factor may call the route. */
  readonly enrollment: PlanPart<boolean>;

  constructor(
    private readonly plans: RoutePlans,
    private readonly credentials: CredentialService,
    private readonly clock: Clock,
  ) {
    this.access = plans.part('access', (route) => route.rule(AuthRuleMetadata));
    this.enrollment = plans.part('mfaEnrollment', (route) => route.paths.some(opensToEnrollment));
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const plan = this.plans.of(context.getHandler(), context.getClass());
    const rule = plan.part(this.access);
    // The request is argument 0; switchToHttp() would allocate three closures on every call.
    const request = context.getArgByIndex<FastifyRequest & { principal?: Principal }>(0);
    if (!rule) throw permissionDenied('This route declares no access rule.');
    // The query-string credential is refused everywhere, public routes included, so it never slips by.
    if (rule.public) {
      if (CredentialService.hasQueryCredential(request)) throw REFUSALS.query_not_allowed();
      return true;
    }
    // A credential already known is judged without a promise; only a first sight waits for its look-up.
    const verdict = this.credentials.resolve(request);
    return verdict instanceof Promise
      ? verdict.then((v) => this.admit(rule, request, v, plan))
      : this.admit(rule, request, verdict, plan);
  }

  private admit(
    rule: AuthRule & { public: false },
    request: FastifyRequest & { principal?: Principal },
    verdict: CredentialVerdict,
    plan: RoutePlan,
  ): boolean | Promise<boolean> {
    if (verdict.status !== 'valid') throw REFUSALS[verdict.status](request.headers.authorization);
    const { principal } = verdict;
    // The company's policy, as the cached credential carries it: no query, and nothing at all without one.
    const policy = principal.policy;
    if (policy !== undefined) {
      if (policy.allows !== null && !policy.allows(request.ip)) throw ipNotAllowed();
      if (principal.lastUsedMs !== undefined && policy.idleMs !== null) {
        const nowMs = this.clock.nowMs();
        if (nowMs - principal.lastUsedMs >= policy.idleMs) return this.endIdle(principal, request);
        principal.lastUsedMs = nowMs;
      }
      if (principal.restricted !== undefined && !plan.part(this.enrollment)) throw mfaEnrollmentRequired();
    }
    // Here, where the credential is used, and not where the rate limiter asks about it (that must cost no I/O).
    this.credentials.recordUse(principal);
    if (rule.jwtOnly && principal.kind !== 'jwt') {
      throw permissionDenied('This operation needs a login token (JWT); API keys cannot call it.');
    }
    if (rule.apiKeyOnly && principal.kind !== 'api_key') {
      throw permissionDenied('This operation needs an API key; login tokens (JWT) cannot call it.');
    }
    if (rule.permission && !grants(principal.permissions, rule.permission)) {
      throw permissionDenied(`This operation needs the permission ${rule.permission}.`);
    }
    request.principal = principal;
    // Only step-up routes read the proof, and only for a login token: an API key has no person to ask.
    return rule.stepUp && principal.kind === 'jwt' ? this.requireFreshProof(principal) : true;
  }

  /** docs/contract.md: a session unused for its company's idle time-out ends (answered as revoked). */
  private async endIdle(principal: Principal, request: FastifyRequest): Promise<never> {
    await this.credentials.endIdle(principal, clientOf(request));
    throw REFUSALS.blacklisted();
  }

  /** Read at each use, not cached with the credential: a reauthentication on any instance counts at once. */
  private async requireFreshProof(principal: Principal): Promise<boolean> {
    const provenAt = await this.credentials.provenAt(principal);
    if (!provenAt || this.clock.nowMs() - provenAt.getTime() > STEP_UP_WINDOW_MS) throw reauthenticationRequired();
    return true;
  }
}
