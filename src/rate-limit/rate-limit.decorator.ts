import { applyDecorators, SetMetadata } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';

export const RATE_LIMIT_RULE = 'rate-limit:rule';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface RateLimitRule {
  /**
   * The API group whose counter the controller's requests share (users, products, orders, ...). Default: the
   * controller's own path, which is what the source calls its controller.
   */
  group?: string;
  /** Per-method limits per 3-second window that replace the defaults for this controller or route. */
  limits?: Partial<Record<HttpMethod, number>>;
  /** Set by {@link NoRateLimit}. */
  skip?: boolean;
}

/**
 * Sets a controller's (or a route's) API group or per-method limits, e.g.
 * `@RateLimit({ limits: { POST: 30 } })` on the files controller. Route-level rules win over class-level ones.
 */
export const RateLimit = (rule: RateLimitRule) => SetMetadata(RATE_LIMIT_RULE, rule);

/** Routes outside the request rate limit, such as partner webhooks that carry their own limits. */
export const NoRateLimit = () => applyDecorators(SkipThrottle(), SetMetadata(RATE_LIMIT_RULE, { skip: true } satisfies RateLimitRule));
