import { performance } from 'node:perf_hooks';
import { serializeError } from '../../common/logging/logger';
import { RateLimitLogger, RateLimitStorage, ThrottlerStorageRecord } from './rate-limit-storage';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface ResilientRateLimitStorageOptions {
  /** Consecutive failed calls (errors or missed deadlines) that open the breaker. */
  failureThreshold?: number;
  /** Time the breaker stays open before one trial call goes to the primary storage again. */
  coolDownMs?: number;
  /**
   * Monotonic milliseconds. Real time by default, deliberately not the service's Clock: the cool-down measures
   * how long an outside system has had to recover, which a test's frozen ManualClock must not stop, and a
   * wall-clock step (NTP) must not stretch or cut short.
   */
  now?: () => number;
}

export const DEFAULT_FAILURE_THRESHOLD = 3;
export const DEFAULT_COOL_DOWN_MS = 1000;

/**
 * The shared (Redis) storage behind a circuit breaker, failing open to a per-instance (memory) storage.
 *
 * While Redis is healthy every check goes there. A check that fails or misses the primary's deadline is
 * answered from memory instead, so a request never waits longer than that deadline nor fails because of the
 * limiter. After `failureThreshold` consecutive failures the breaker opens and checks go straight to memory
 * (limits then hold per instance rather than across the fleet). After `coolDownMs` a single trial check goes to
 * Redis; success closes the breaker, failure keeps it open for another cool-down.
 *
 * The primary must enforce its own deadline (RedisRateLimitStorage does). Logging: one line when the breaker
 * opens, one when it closes, never per request. A check that timed out may still be counted by Redis later;
 * nothing is replayed, so a hit is counted at most once per storage.
 */
export class ResilientRateLimitStorage implements RateLimitStorage {
  private readonly failureThreshold: number;
  private readonly coolDownMs: number;
  private readonly now: () => number;
  private currentState: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private outageStartedAt = 0;
  private fallbacks = 0;

  constructor(
    private readonly primary: RateLimitStorage,
    private readonly fallback: RateLimitStorage,
    private readonly logger: RateLimitLogger,
    options: ResilientRateLimitStorageOptions = {},
  ) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD);
    this.coolDownMs = Math.max(0, options.coolDownMs ?? DEFAULT_COOL_DOWN_MS);
    this.now = options.now ?? (() => performance.now());
  }

  get state(): BreakerState {
    return this.currentState;
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
  ): Promise<ThrottlerStorageRecord> {
    return this.run(
      () => this.primary.increment(key, ttl, limit, blockDuration, throttlerName),
      () => this.fallback.increment(key, ttl, limit, blockDuration, throttlerName),
    );
  }

  peek(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.run(
      () => this.primary.peek(key, ttlMs, limit),
      () => this.fallback.peek(key, ttlMs, limit),
    );
  }

  /** Clears both storages: whichever answers the next check must not remember the key. */
  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    await this.primary.reset(key);
  }

  private async run<T>(onPrimary: () => Promise<T>, onFallback: () => Promise<T>): Promise<T> {
    if (this.currentState !== 'closed') {
      // Only one trial at a time: while it is out, 'half-open' sends everyone else to the fallback.
      if (this.currentState === 'half-open' || this.now() - this.openedAt < this.coolDownMs) {
        this.fallbacks++;
        return onFallback();
      }
      this.currentState = 'half-open';
      return this.trial(onPrimary, onFallback);
    }
    try {
      const result = await onPrimary();
      // A success that was issued before the breaker opened says nothing about Redis now; only a trial closes.
      if (this.currentState === 'closed') this.consecutiveFailures = 0;
      return result;
    } catch (error) {
      this.recordFailure(error);
      this.fallbacks++;
      return onFallback();
    }
  }

  private async trial<T>(onPrimary: () => Promise<T>, onFallback: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await onPrimary();
    } catch {
      // Still down: stay open for another cool-down, silently; the "open" line was written once already.
      this.currentState = 'open';
      this.openedAt = this.now();
      this.fallbacks++;
      return onFallback();
    }
    this.currentState = 'closed';
    this.consecutiveFailures = 0;
    this.logger.info(
      {
        event: 'rate_limit_breaker_closed',
        outageMs: Math.round(this.now() - this.outageStartedAt),
        fallbackCount: this.fallbacks,
      },
      'rate-limit storage recovered: counters are shared through Redis again',
    );
    return result;
  }

  private recordFailure(error: unknown): void {
    if (this.currentState !== 'closed') return;
    this.consecutiveFailures++;
    if (this.consecutiveFailures < this.failureThreshold) return;
    this.currentState = 'open';
    this.openedAt = this.now();
    this.outageStartedAt = this.openedAt;
    // The stack adds nothing to "Redis did not answer" and would make the one line many.
    const { stack: _stack, ...reason } = serializeError(error);
    this.logger.warn(
      {
        event: 'rate_limit_breaker_open',
        consecutiveFailures: this.consecutiveFailures,
        coolDownMs: this.coolDownMs,
        reason,
      },
      'rate-limit storage unavailable: limiting per instance in memory until Redis answers again',
    );
  }
}
