import { performance } from 'node:perf_hooks';
import { serializeError } from '../common/logging/logger';
import { DeadlineError } from '../common/runtime/deadline';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** The part of a pino logger the breaker uses; a plain object with these two methods will do in tests. */
export interface BreakerLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export interface CircuitBreakerOptions {
  /** Consecutive failed calls (errors or missed deadlines) that open the breaker. */
  failureThreshold?: number;
  /** Time the breaker stays open before one trial call goes to Redis again. */
  coolDownMs?: number;
  /**
   * A streak made only of missed deadlines opens the breaker only once it has lasted this long: one slow reply
   * (a Redis fork, a GC pause) makes every call in flight miss its deadline at once, and that burst alone must
   * not split the fleet's shared limits into per-instance ones. A refused call (Redis gone) counts at once.
   */
  slowToleranceMs?: number;
  /**
   * Monotonic milliseconds. Real time by default, deliberately not the service's Clock: the cool-down measures
   * how long an outside system has had to recover, which a test's frozen ManualClock must not stop, and a
   * wall-clock step (NTP) must not stretch or cut short.
   */
  now?: () => number;
}

export const DEFAULT_FAILURE_THRESHOLD = 3;
export const DEFAULT_COOL_DOWN_MS = 1000;
export const DEFAULT_SLOW_TOLERANCE_MS = 400;

/**
 * One circuit breaker per process in front of every Redis use (rate-limit counters, the failed-login lockout,
 * the company-switch limit, revocation notices, the fleet heartbeat), so that Redis is an accelerator and never
 * a single point of failure (docs/contract.md, "Operations"): a call that fails or misses its deadline is answered
 * by the caller's fallback, never by an error, and once Redis is known to be away nobody waits for it at all.
 *
 * After `failureThreshold` consecutive failures the breaker opens and every call goes straight to its
 * fallback. After `coolDownMs` a single trial call goes to Redis; success closes the breaker, failure keeps it
 * open for another cool-down. Logging: one line when the breaker opens, one when it closes, never per call.
 * Callers enforce their own deadline (see {@link withDeadline}); the breaker only judges the outcome.
 */
export class CircuitBreaker {
  private readonly failureThreshold: number;
  private readonly coolDownMs: number;
  private readonly slowToleranceMs: number;
  private readonly now: () => number;
  private currentState: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private streakStartedAt = 0;
  private streakAllSlow = true;
  private openedAt = 0;
  private outageStartedAt = 0;
  private fallbacks = 0;

  constructor(
    private readonly logger: BreakerLogger,
    options: CircuitBreakerOptions = {},
  ) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD);
    this.coolDownMs = Math.max(0, options.coolDownMs ?? DEFAULT_COOL_DOWN_MS);
    this.slowToleranceMs = Math.max(0, options.slowToleranceMs ?? DEFAULT_SLOW_TOLERANCE_MS);
    this.now = options.now ?? (() => performance.now());
  }

  get state(): BreakerState {
    return this.currentState;
  }

  /** Calls answered by their fallback because Redis failed or the breaker was open. */
  get fallbackCount(): number {
    return this.fallbacks;
  }

  /** Whether a call made now would go to Redis (closed, or open with its cool-down over). */
  get available(): boolean {
    return (
      this.currentState === 'closed' || (this.currentState === 'open' && this.now() - this.openedAt >= this.coolDownMs)
    );
  }

  /** `primary` (a Redis call with its own deadline), or `fallback` when it fails or Redis is known to be away. */
  async run<T>(primary: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (this.currentState !== 'closed') {
      // Only one trial at a time: while it is out, 'half-open' sends everyone else to the fallback.
      if (this.currentState === 'half-open' || this.now() - this.openedAt < this.coolDownMs) {
        this.fallbacks++;
        return fallback();
      }
      this.currentState = 'half-open';
      return this.trial(primary, fallback);
    }
    try {
      const result = await primary();
      // A success that was issued before the breaker opened says nothing about Redis now; only a trial closes.
      if (this.currentState === 'closed') this.consecutiveFailures = 0;
      return result;
    } catch (error) {
      this.recordFailure(error);
      this.fallbacks++;
      return fallback();
    }
  }

  private async trial<T>(primary: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await primary();
    } catch {
      // Still down: stay open for another cool-down, silently; the "open" line was written once already.
      this.currentState = 'open';
      this.openedAt = this.now();
      this.fallbacks++;
      return fallback();
    }
    this.currentState = 'closed';
    this.consecutiveFailures = 0;
    this.logger.info(
      {
        event: 'rate_limit_breaker_closed',
        outageMs: Math.round(this.now() - this.outageStartedAt),
        fallbackCount: this.fallbacks,
      },
      'Redis recovered: counters and revocation notices are shared through Redis again',
    );
    return result;
  }

  private recordFailure(error: unknown): void {
    if (this.currentState !== 'closed') return;
    const now = this.now();
    if (this.consecutiveFailures === 0) {
      this.streakStartedAt = now;
      this.streakAllSlow = true;
    }
    this.consecutiveFailures++;
    if (!(error instanceof DeadlineError)) this.streakAllSlow = false;
    if (this.consecutiveFailures < this.failureThreshold) return;
    if (this.streakAllSlow && now - this.streakStartedAt < this.slowToleranceMs) return;
    this.currentState = 'open';
    this.openedAt = now;
    this.outageStartedAt = now;
    // The stack adds nothing to "Redis did not answer" and would make the one line many.
    const { stack: _stack, ...reason } = serializeError(error);
    this.logger.warn(
      {
        event: 'rate_limit_breaker_open',
        consecutiveFailures: this.consecutiveFailures,
        coolDownMs: this.coolDownMs,
        reason,
      },
      'Redis unavailable: limiting per instance in memory and sending revocations through PostgreSQL until it answers again',
    );
  }
}
