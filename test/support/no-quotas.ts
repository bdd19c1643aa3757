import type { RateLimitQuotas } from '../../src/rate-limiting/quotas/rate-limit-quotas';

/** The rate limiter's quotas when none is set, for unit specs that do not exercise them. */
export const NO_QUOTAS = {
  any: false,
  take: () => undefined,
  peek: () => Promise.resolve([]),
} as unknown as RateLimitQuotas;
