import { Reflector } from '@nestjs/core';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface RateLimitRule {
  /**
   * The API group whose counter the controller's requests share (users, products, orders, ...). Default: the
   * controller's own path, which is what the source calls its controller.
   */
  group?: string;
  /** Per-method bucket capacities (drained per 3 seconds) that replace the defaults for this controller or route. */
  limits?: Partial<Record<HttpMethod, number>>;
  /** The limits are exact: RATE_LIMIT_SCALE (a benchmark's multiplier) does not apply to them. */
  unscaled?: boolean;
  /**
   * Slots of its bucket one request takes (default 1), for a route that costs the service more than most (an
   * export, a report): `@RateLimit({ cost: 5 })`. A whole number from 1 to the route's own capacity; the bucket
   * stays the group's, so a costly route and its cheap siblings share it. No route of the source's table has one.
   */
  cost?: number;
  /** Set by {@link NoRateLimit}. */
  skip?: boolean;
}

/**
 * Sets a controller's (or a route's) API group or per-method limits, e.g.
 * `@RateLimit({ limits: { POST: 30 } })` on the files controller. Route-level rules win over class-level ones.
 * Typed metadata: RateLimitPolicy reads it with `reflector.get(RateLimit, target)`.
 */
export const RateLimit = Reflector.createDecorator<RateLimitRule>();

/** Routes outside the request rate limit, such as partner webhooks that carry their own limits. */
export const NoRateLimit = () => RateLimit({ skip: true });
