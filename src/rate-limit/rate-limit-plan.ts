import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerGenerateKeyFunction, ThrottlerGetTrackerFunction, ThrottlerOptions } from '@nestjs/throttler';

/** A route's throttler settings, resolved once: what ThrottlerGuard would otherwise read on every request. */
export interface RoutePlan {
  name: string;
  limit: number | ((context: ExecutionContext) => number | Promise<number>);
  ttl: number;
  blockDuration: number;
  getTracker: ThrottlerGetTrackerFunction;
  generateKey: ThrottlerGenerateKeyFunction;
}
/** `@NoRateLimit()` (or the throttler's own skip metadata): no counting at all. */
export const SKIPPED = 'skipped';
/** Settings that can differ per request (skipIf, ignored user agents, resolvable ttl): the framework's path. */
export const GENERAL = 'general';

export type Plan = RoutePlan | typeof SKIPPED | typeof GENERAL;

/**
 * What ThrottlerGuard.canActivate would resolve per request, from the throttler options RateLimitModule
 * configures, for a route that is not skipped. Rules are declared with `@RateLimit()` / `@NoRateLimit()` (read
 * by RateLimitPolicy); the throttler's own `@Throttle()` / `@SkipThrottle()` metadata is not read, here or on
 * the general path.
 */
export function resolvePlan(
  throttlers: ThrottlerOptions[],
  options: Pick<ThrottlerOptions, 'skipIf' | 'ignoreUserAgents' | 'getTracker' | 'generateKey'>,
): Plan {
  if (throttlers.length !== 1) return GENERAL;
  const throttler = throttlers[0];
  const name = throttler.name ?? 'default';
  if (throttler.skipIf || options.skipIf) return GENERAL;
  if (throttler.ignoreUserAgents ?? options.ignoreUserAgents) return GENERAL;
  const ttl = throttler.ttl;
  const blockDuration = throttler.blockDuration ?? ttl;
  const getTracker = throttler.getTracker ?? options.getTracker;
  const generateKey = throttler.generateKey ?? options.generateKey;
  if (typeof ttl !== 'number' || typeof blockDuration !== 'number' || !getTracker || !generateKey) return GENERAL;
  return { name, limit: throttler.limit, ttl, blockDuration, getTracker, generateKey };
}
