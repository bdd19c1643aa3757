import type { RateLimitOverrides } from '../../src/rate-limiting/overrides/rate-limit-overrides';

/** The rate limiter's overrides when none is set, for unit specs that do not exercise them. */
export const NO_OVERRIDES = { any: false, lookup: () => undefined } as unknown as RateLimitOverrides;
