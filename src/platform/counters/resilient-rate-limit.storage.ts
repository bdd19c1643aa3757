import {
  type BreakerState,
  CircuitBreaker,
  type CircuitBreakerOptions,
  DEFAULT_COOL_DOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
} from './circuit-breaker';
import {
  type AdmitRecord,
  type LeaseAsk,
  RateLimitLogger,
  RateLimitRecord,
  RateLimitStorage,
  WindowRecord,
} from './rate-limit-storage';

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
   * instance's buckets hold `ceil(limit / N)` and drain at 1/N of the rate, so that the fleet as a whole stays
   * near the limit (docs/contract.md).
   */
  fleetSize?: () => number;
}

/**
 * The shared (Redis) storage behind the circuit breaker, failing open to a per-instance (memory) storage.
 *
 * While Redis is healthy every check goes there. A check that fails or misses the primary's deadline is
 * answered from memory instead, so a request never waits longer than that deadline nor fails because of the
 * limiter, in a bucket of `ceil(limit / N)` draining at 1/N of the rate, N being the instances last seen
 * alive (docs/contract.md, "Operations"); the record then says which capacity it applied, for the headers. Resets go through the breaker too: a login must not fail because the failure
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
        return this.applied(this.fallback.increment(key, this.sharePeriod(ttl, limit, share), share, 0, ''), share);
      },
    );
  }

  peek(key: string, ttlMs: number, limit: number): Promise<RateLimitRecord> {
    return this.breaker.run(
      () => this.primary.peek(key, ttlMs, limit),
      () => {
        const share = this.share(limit);
        return this.applied(this.fallback.peek(key, this.sharePeriod(ttlMs, limit, share), share), share);
      },
    );
  }

  /**
   * The bucket and the lease as one (one round trip to Redis); while Redis is away, both in memory at this
   * instance's share: `ceil(cap / N)` leases as `ceil(limit / N)` slots. A lease returns to the storage that
   * gave it (one taken in Redis before an outage lapses there if it cannot be removed).
   */
  admit(key: string, ttl: number, limit: number, cost: number, lease?: LeaseAsk): Promise<AdmitRecord> {
    return this.breaker.run(
      () => this.primary.admit(key, ttl, limit, cost, lease),
      () => {
        const share = this.share(limit);
        const period = this.sharePeriod(ttl, limit, share);
        const ask = lease && { key: lease.key, cap: this.share(lease.cap) };
        return this.applied(this.fallback.admit(key, period, share, cost, ask), share, ask?.cap);
      },
    );
  }

  leases(key: string): Promise<number> {
    return this.breaker.run(
      () => this.primary.leases(key),
      () => this.fallback.leases(key),
    );
  }

  hitWindow(key: string, windowMs: number, limit: number): Promise<WindowRecord> {
    return this.breaker.run(
      () => this.primary.hitWindow(key, windowMs, limit),
      () => {
        const share = this.share(limit);
        return this.applied(this.fallback.hitWindow(key, windowMs, share), share);
      },
    );
  }

  peekWindow(key: string, windowMs: number, limit: number): Promise<WindowRecord> {
    return this.breaker.run(
      () => this.primary.peekWindow(key, windowMs, limit),
      () => {
        const share = this.share(limit);
        return this.applied(this.fallback.peekWindow(key, windowMs, share), share);
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

  /**
   * The period in which a bucket of `share` drains at 1/N of the fleet's rate (`limit` per `ttl`): N instances
   * each draining `share` per this period together drain about `limit` per `ttl`.
   */
  private sharePeriod(ttl: number, limit: number, share: number): number {
    const instances = Math.max(1, Math.floor(this.fleetSize()));
    return (ttl * share * instances) / Math.max(1, limit);
  }

  private async applied<R extends object>(
    record: Promise<R>,
    limit: number,
    cap?: number,
  ): Promise<R & { limit: number }> {
    this.fallbacks++;
    return cap === undefined ? { ...(await record), limit } : { ...(await record), limit, cap };
  }
}
