import { type ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { routeCatalogue } from '../common/http/route-catalogue';
import { AppConfig } from '../config/app-config';
import { RateLimit, type RateLimitRule } from './rate-limit.decorator';

/** The source's 3 seconds: a full bucket drains in this time (its limit per 3 s when sustained). */
export const RATE_LIMIT_PERIOD_MS = 3000;

/** The source's table: each bucket's capacity, drained per 3 seconds; every method not named here gets {@link OTHER_METHODS_LIMIT}. */
export const DEFAULT_LIMITS: Readonly<Record<string, number>> = { GET: 30, POST: 15, PUT: 15, DELETE: 3 };
export const OTHER_METHODS_LIMIT = 30;

// Reflector lookups are cheap, but this runs on every request: remember each route's answer.
export interface RouteLimits {
  group: string;
  limits: Partial<Record<string, number>>;
  /** Exempt by @NoRateLimit() on the route or its controller. */
  skip: boolean;
}

/** Which counter a request belongs to and how many requests that counter allows. */
@Injectable()
export class RateLimitPolicy {
  private readonly routes = new WeakMap<Function, RouteLimits>();
  private byPattern?: Map<string, RouteLimits>;

  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
  ) {}

  /** The limit for a method, scaled by RATE_LIMIT_SCALE (never below 1). */
  static scaled(limit: number, scale: number): number {
    return Math.max(1, Math.floor(limit * scale));
  }

  defaultLimit(method: string): number {
    return RateLimitPolicy.scaled(DEFAULT_LIMITS[method] ?? OTHER_METHODS_LIMIT, this.config.rateLimitScale);
  }

  route(handler: Function, controller: Function): RouteLimits {
    let route = this.routes.get(handler);
    if (!route) {
      const classRule: RateLimitRule = this.reflector.get(RateLimit, controller) ?? {};
      const handlerRule: RateLimitRule = this.reflector.get(RateLimit, handler) ?? {};
      route = {
        group:
          handlerRule.group ?? classRule.group ?? groupFromPath(this.reflector.get<unknown>(PATH_METADATA, controller)),
        limits: { ...classRule.limits, ...handlerRule.limits },
        skip: handlerRule.skip ?? classRule.skip ?? false,
      };
      this.routes.set(handler, route);
    }
    return route;
  }

  /**
   * The route behind a Fastify route pattern (`/v1/files/:id`), for responses the guard never saw (a body
   * refused before the handler): without it their headers would show the default limit and the path's first
   * segment instead of the controller's own limits and group.
   */
  routeForPattern(method: string, pattern: string): RouteLimits | undefined {
    this.byPattern ??= this.indexRoutes();
    const path = normalizePath(pattern.replace(/^\/v\d+(?=\/|$)/, ''));
    return this.byPattern.get(`${method} ${path}`) ?? this.byPattern.get(`ALL ${path}`);
  }

  /** The limit of the request in `context` (the throttler's `limit` option). */
  limitForContext(context: ExecutionContext): number {
    const { method } = context.getArgByIndex<{ method: string }>(0);
    return this.limitFor(method, this.route(context.getHandler(), context.getClass()));
  }

  limitFor(method: string, route: RouteLimits): number {
    const own = route.limits[method];
    return own === undefined ? this.defaultLimit(method) : RateLimitPolicy.scaled(own, this.config.rateLimitScale);
  }

  // Built on first use, once every controller exists; keyed by method and path without the version prefix.
  private indexRoutes(): Map<string, RouteLimits> {
    const index = new Map<string, RouteLimits>();
    const controllers = this.discovery
      .getControllers()
      .flatMap(({ instance, metatype }) => (instance && metatype ? [metatype as Type] : []));
    for (const { method, unversionedPaths, handler, controller } of routeCatalogue(controllers)) {
      const route = this.route(handler, controller);
      for (const path of unversionedPaths) index.set(`${method} ${path}`, route);
    }
    return index;
  }
}

function normalizePath(path: string): string {
  return `/${path
    .split('/')
    .filter((segment) => segment !== '')
    .join('/')}`;
}

/** `users`, `v1/users` or `/users/x` → `users`: the controller's own path names its API group. */
export function groupFromPath(path: unknown): string {
  const first = (Array.isArray(path) ? path[0] : path) as string | undefined;
  const segments = (first ?? '').split('/').filter((segment) => segment !== '' && !/^v\d+$/.test(segment));
  return segments[0] ?? '-';
}
