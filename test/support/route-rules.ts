import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { AppModule } from '../../src/app.module';
import { type AuthRule, AuthRuleMetadata } from '../../src/auth/auth.decorator';
import type { AppLogger } from '../../src/common/logging/logger';
import type { AppConfig } from '../../src/config/app-config';
import { RateLimitPolicy } from '../../src/rate-limit/rate-limit.policy';

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

type ModuleRef = { module?: Function; imports?: unknown[]; controllers?: Function[] } | Function;

/**
 * Every route the application module declares, with its auth and rate-limit rules, without starting anything:
 * walks `AppModule.forRoot(...)`'s module graph through Nest's own module metadata and reads the decorators
 * the guards read (the same Reflector calls, the same RateLimitPolicy).
 */
export function routeRules(): RouteRule[] {
  const reflector = new Reflector();
  // Scale 1: the table as the source writes it. Discovery is not needed for per-route look-ups.
  const policy = new RateLimitPolicy(
    reflector,
    { rateLimitScale: 1 } as AppConfig,
    undefined as never,
    undefined as never,
  );
  const controllers = new Set<Function>();
  const seen = new Set<unknown>();
  const visit = (entry: unknown) => {
    if (!entry || seen.has(entry)) return;
    seen.add(entry);
    const ref = entry as ModuleRef;
    const moduleClass = typeof ref === 'function' ? ref : ref.module;
    const dynamic = typeof ref === 'function' ? {} : ref;
    const imports = [
      ...((moduleClass && Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass)) ?? []),
      ...(dynamic.imports ?? []),
    ];
    for (const controller of [
      ...((moduleClass && Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, moduleClass)) ?? []),
      ...(dynamic.controllers ?? []),
    ]) {
      controllers.add(controller);
    }
    if (moduleClass) visit(moduleClass);
    for (const imported of imports) visit(imported);
  };
  visit(AppModule.forRoot({} as AppConfig, {} as AppLogger));

  const rules: RouteRule[] = [];
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, Function>;
    const version = Reflect.getMetadata(VERSION_METADATA, controller) as string | undefined;
    const controllerPath = Reflect.getMetadata(PATH_METADATA, controller) as string;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (methodPath === undefined || method === undefined) continue;
      const path = [version ? `v${version}` : '', controllerPath, methodPath]
        .flatMap((part) => part.split('/'))
        .filter(Boolean)
        .join('/');
      const limits = policy.route(handler, controller);
      rules.push({
        route: `${RequestMethod[method]} /${path}`,
        controller: controller.name,
        handler: name,
        auth: reflector.getAllAndOverride(AuthRuleMetadata, [handler, controller]),
        rateLimit: limits.skip
          ? undefined
          : { group: limits.group, limit: policy.limitFor(RequestMethod[method], limits) },
      });
    }
  }
  return rules.sort((a, b) => a.route.localeCompare(b.route));
}

/** One reviewable line per route: `GET /v1/users/me   any credential   users: 30 per 3 s`. */
export function describeRule(rule: RouteRule): string {
  const auth = !rule.auth
    ? 'NO RULE'
    : rule.auth.public
      ? 'public'
      : rule.auth.permission
        ? `permission ${rule.auth.permission}${rule.auth.jwtOnly ? ', JWT only' : ''}`
        : rule.auth.jwtOnly
          ? 'JWT only'
          : 'any credential';
  const rate = rule.rateLimit ? `${rule.rateLimit.group}: ${rule.rateLimit.limit} per 3 s` : 'not rate limited';
  return `${rule.route.padEnd(46)} ${auth.padEnd(40)} ${rate}`;
}
