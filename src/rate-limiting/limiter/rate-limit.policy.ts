import { Injectable } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import type { CataloguedRoute } from '../../platform/common/http/route-catalogue';
import { type PlanPart, type RoutePlan, RoutePlans } from '../../platform/common/http/route-plan';
import { serializeList, serializeString } from 'structured-headers';
import { AppConfig } from '../../platform/config/app-config';
import { RateLimit } from '../../access/rules/rate-limit.decorator';

/** The source's 3 seconds: a full bucket drains in this time (its limit per 3 s when sustained). */
export const RATE_LIMIT_PERIOD_MS = 3000;

/** The IETF policy's window (`w`), in whole seconds. */
const WINDOW_SECONDS = RATE_LIMIT_PERIOD_MS / 1000;

/** The IETF policy's name: `<method>-<group>` in lowercase, e.g. `get-products` (docs/contract.md). */
export const policyName = (method: string, group: string): string => `${method}-${group}`.toLowerCase();

/**
 * `RateLimit-Policy: "get-products";q=30;w=3` (an RFC 9651 List of one String Item, by the structured-headers
 * serializer): the bucket holds `q` requests and drains as many per `w` seconds. It depends on the name and
 * capacity only, so each route's plan caches its own ({@link RouteLimits.policy}).
 */
export const policyField = (name: string, capacity: number): string =>
  serializeList([
    [
      name,
      new Map([
        ['q', capacity],
        ['w', WINDOW_SECONDS],
      ]),
    ],
  ]);

/** The source's table: each bucket's capacity, drained per 3 seconds; every method not named here gets {@link OTHER_METHODS_LIMIT}. */
export const DEFAULT_LIMITS: Readonly<Record<string, number>> = { GET: 30, POST: 15, PUT: 15, DELETE: 3 };
export const OTHER_METHODS_LIMIT = 30;

/** A route's piece of its plan (common/http/route-plan.ts): which counter it uses and how much that holds. */
export interface RouteLimits {
  group: string;
  /** The route's own per-method capacities, unscaled (the controller's merged with the handler's, key by key). */
  limits: Partial<Record<string, number>>;
  /** Exempt by @NoRateLimit() on the route or its controller. */
  skip: boolean;
  /** Capacities RATE_LIMIT_SCALE does not multiply (a bucket of its own, such as `GET /v1/ratelimits`'). */
  unscaled: boolean;
  /** The route's method (`ALL` for `@All()`) and its capacity, scaled: what nearly every request asks for. */
  method: string;
  capacity: number;
  /** Slots of the bucket one request takes (`@RateLimit({ cost })`, 1 unless the route says otherwise). */
  cost: number;
  /** `<method>-<group>` of {@link method}, that name as an RFC 9651 String and its RateLimit-Policy, at start. */
  name: string;
  item: string;
  policy: string;
}

/** The limit for a method, scaled by RATE_LIMIT_SCALE (never below 1). */
function scaled(limit: number, scale: number): number {
  return Math.max(1, Math.floor(limit * scale));
}

function capacityOf(method: string, own: Partial<Record<string, number>>, scale: number): number {
  return scaled(own[method] ?? DEFAULT_LIMITS[method] ?? OTHER_METHODS_LIMIT, scale);
}

/** A route's limits as its `@RateLimit()` / `@NoRateLimit()` decorators declare them; route-level rules win. */
export function compileRouteLimits(route: CataloguedRoute, scale: number): RouteLimits {
  const { controller = {}, handler = {} } = route.ruleParts(RateLimit);
  const limits = { ...controller.limits, ...handler.limits };
  const group =
    handler.group ?? controller.group ?? groupFromPath(Reflect.getMetadata(PATH_METADATA, route.controller));
  const unscaled = handler.unscaled ?? controller.unscaled ?? false;
  const capacity = capacityOf(route.method, limits, unscaled ? 1 : scale);
  const name = policyName(route.method, group);
  const cost = costOf(route, handler.cost ?? controller.cost, capacityOf(route.method, limits, 1));
  return {
    group,
    limits,
    skip: handler.skip ?? controller.skip ?? false,
    unscaled,
    method: route.method,
    capacity,
    cost,
    name,
    item: serializeString(name),
    policy: policyField(name, capacity),
  };
}

/**
 * A route's cost, checked at start: a whole number from 1 to its own (unscaled) capacity, so that no route is
 * refused whatever its bucket holds. A route that breaks the rule stops the service from starting.
 */
function costOf(route: CataloguedRoute, declared: number | undefined, capacity: number): number {
  if (declared === undefined) return 1;
  if (!Number.isInteger(declared) || declared < 1 || declared > capacity) {
    const where = `${route.method} ${route.paths.join(', ')}`;
    throw new Error(`@RateLimit({ cost: ${declared} }) on ${where}: a cost is a whole number from 1 to ${capacity}`);
  }
  return declared;
}

/** Which counter a request belongs to and how many requests that counter allows. */
@Injectable()
export class RateLimitPolicy {
  private readonly limits: PlanPart<RouteLimits>;
  private byPattern?: Map<string, RouteLimits>;

  constructor(
    private readonly plans: RoutePlans,
    private readonly config: AppConfig,
  ) {
    this.limits = plans.part('rate limit', (route) => compileRouteLimits(route, config.rateLimitScale));
  }

  /** The limit for a method, scaled by RATE_LIMIT_SCALE (never below 1). */
  static scaled(limit: number, scale: number): number {
    return scaled(limit, scale);
  }

  defaultLimit(method: string): number {
    return capacityOf(method, {}, this.config.rateLimitScale);
  }

  route(handler: Function, controller: Function): RouteLimits {
    return this.plans.of(handler, controller).part(this.limits);
  }

  /** A plan's limits, for readers that walk every plan ({@link RoutePlans.all}). */
  limitsOf(plan: RoutePlan): RouteLimits {
    return plan.part(this.limits);
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

  /** The capacity of `method`'s bucket on `route`: compiled at start unless the route answers several methods. */
  limitFor(method: string, route: RouteLimits): number {
    if (method === route.method) return route.capacity;
    return capacityOf(method, route.limits, route.unscaled ? 1 : this.config.rateLimitScale);
  }

  // Built on first use; keyed by method and path without the version prefix.
  private indexRoutes(): Map<string, RouteLimits> {
    const index = new Map<string, RouteLimits>();
    for (const plan of this.plans.all()) {
      for (const path of plan.route.unversionedPaths) index.set(`${plan.route.method} ${path}`, plan.part(this.limits));
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
