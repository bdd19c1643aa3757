import {
  type BreakerState,
  CircuitBreaker,
  type CircuitBreakerOptions,
  DEFAULT_COOL_DOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
} from '../../redis-client/circuit-breaker';
import { RateLimitLogger, RateLimitRecord, RateLimitStorage } from './rate-limit-storage';

export type { BreakerState };
export { DEFAULT_COOL_DOWN_MS, DEFAULT_FAILURE_THRESHOLD };

export interface ResilientRateLimitStorageOptions extends CircuitBreakerOptions {
  /**
   * The process's one Redis breaker, shared with every other Redis use; when absent the storage has a breaker
   * of its own built from the other options (unit tests).
   */
  breaker?: CircuitBreaker;
  /**
   * How many instances share the fleet's limits, as last seen (at least 1). While the fallback answers, each
   * instance allows `ceil(limit / N)` so that the fleet as a whole stays near the limit (contract.md).
   */
  fleetSize?: () => number;
}

/**
 * The shared (Redis) storage behind the circuit breaker, failing open to a per-instance (memory) storage.
 *
 * While Redis is healthy every check goes there. A check that fails or misses the primary's deadline is
 * answered from memory instead, so a request never waits longer than that deadline nor fails because of the
 * limiter, at `ceil(limit / N)` with N the instances last seen alive; the record then says which limit it
 * applied, for the headers. Resets go through the breaker too: a login must not fail because the failure
 * counter could not be cleared in Redis.
 *
 * The primary must enforce its own deadline (RedisRateLimitStorage does). A check that timed out may still be
 * counted by Redis later; nothing is replayed, so a hit is counted at most once per storage.
 */
export class ResilientRateLimitStorage implements RateLimitStorage {
  private readonly breaker: CircuitBreaker;
  private readonly fleetSize: () => number;
  private fallbacks = 0;

  constructor(
    private readonly primary: RateLimitStorage,
    private readonly fallback: RateLimitStorage,
    logger: RateLimitLogger,
    options: ResilientRateLimitStorageOptions = {},
  ) {
    this.breaker = options.breaker ?? new CircuitBreaker(logger, options);
    this.fleetSize = options.fleetSize ?? (() => 1);
  }

  get state(): BreakerState {
    return this.breaker.state;
  }

  /** Checks answered by the fallback because the primary failed or the breaker was open. */
  get fallbackCount(): number {
    return this.fallbacks;
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<RateLimitRecord> {
    return this.breaker.run(
      () => this.primary.increment(key, ttl, limit, blockDuration, throttlerName),
      () => {
        const share = this.share(limit);
        return this.applied(this.fallback.increment(key, ttl, share, blockDuration, throttlerName), share);
      },
    );
  }

  peek(key: string, ttlMs: number, limit: number): Promise<RateLimitRecord> {
    return this.breaker.run(
      () => this.primary.peek(key, ttlMs, limit),
      () => {
        const share = this.share(limit);
        return this.applied(this.fallback.peek(key, ttlMs, share), share);
      },
    );
  }

  /**
   * Clears both storages: whichever answers the next check must not remember the key. Redis's copy is cleared
   * only when Redis answers; otherwise it expires with its window.
   */
  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    await this.breaker.run(
      () => this.primary.reset(key),
      () => undefined,
    );
  }

  /** This instance's share of a fleet-wide limit while it counts alone. */
  private share(limit: number): number {
    const instances = Math.max(1, Math.floor(this.fleetSize()));
    return Math.max(1, Math.ceil(limit / instances));
  }

  private async applied(record: Promise<RateLimitRecord>, limit: number): Promise<RateLimitRecord> {
    this.fallbacks++;
    return { ...(await record), limit };
  }
}
