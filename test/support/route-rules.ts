import { AppModule } from '../../src/app.module';
import { type AuthRule, AuthRuleMetadata } from '../../src/access/rules/auth.decorator';
import { controllersDeclaredBy, routeCatalogue } from '../../src/platform/common/http/route-catalogue';
import type { AppLogger } from '../../src/platform/common/logging/logger';
import type { AppConfig } from '../../src/platform/config/app-config';
import { compileRouteLimits } from '../../src/rate-limiting/limiter/rate-limit.policy';

/** One route of the application and the rules its decorators declare, read from metadata alone. */
export interface RouteRule {
  /** `GET /v1/users/me` */
  route: string;
  controller: string;
  handler: string;
  /** The auth rule; `undefined` when the route declares none (the guard then refuses it). */
  auth: AuthRule | undefined;
  /** `undefined` when the route is outside the request rate limit (`@NoRateLimit()`). */
  rateLimit: { group: string; limit: number } | undefined;
}

/**
 * Every route the application module declares, with its auth and rate-limit rules, without starting anything:
 * the route catalogue the rate-limit policy and the OpenAPI document use, over `AppModule.forRoot(...)`'s
 * module graph, with each route's limits compiled as the guard's route plan compiles them.
 */
export function routeRules(): RouteRule[] {
  const controllers = controllersDeclaredBy(AppModule.forRoot({} as AppConfig, {} as AppLogger));
  return routeCatalogue(controllers)
    .flatMap((route) =>
      route.paths.map((path) => {
        // Scale 1: the table as the source writes it.
        const limits = compileRouteLimits(route, 1);
        return {
          route: `${route.method} ${path}`,
          controller: route.controller.name,
          handler: route.handlerName,
          auth: route.rule(AuthRuleMetadata),
          rateLimit: limits.skip ? undefined : { group: limits.group, limit: limits.capacity },
        };
      }),
    )
    .sort((a, b) => a.route.localeCompare(b.route));
}

/** One reviewable line per route: `GET /v1/users/me   any credential   users: 30 per 3 s`. */
export function describeRule(rule: RouteRule): string {
  const auth = !rule.auth
    ? 'NO RULE'
    : rule.auth.public
      ? rule.auth.by
        ? `own guard: ${rule.auth.by}`
        : 'public'
      : rule.auth.permission
        ? `permission ${rule.auth.permission}${rule.auth.jwtOnly ? ', JWT only' : rule.auth.apiKeyOnly ? ', API key only' : ''}`
        : rule.auth.jwtOnly
          ? 'JWT only'
          : 'any credential';
  const access = rule.auth && !rule.auth.public && rule.auth.stepUp ? `${auth}, step-up` : auth;
  const rate = rule.rateLimit ? `${rule.rateLimit.group}: ${rule.rateLimit.limit} per 3 s` : 'not rate limited';
  return `${rule.route.padEnd(46)} ${access.padEnd(45)} ${rate}`;
}
