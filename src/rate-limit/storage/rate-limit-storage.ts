import type { ThrottlerStorage } from '@nestjs/throttler';

/**
 * What a check answers, exactly as `@nestjs/throttler`'s guard reads it. Derived from the interface because the
 * package does not export the record type from its entry point.
 *
 * Units follow the guard, which writes them unchanged into `Retry-After` and `X-RateLimit-Reset`: whole
 * seconds, rounded up. `timeToBlockExpire` is at least 1 while blocked (a `Retry-After: 0` would invite an
 * immediate retry that is still refused) and 0 otherwise.
 */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * A record plus, when the storage applied a limit other than the one asked for, that limit: while Redis is away
 * each instance allows only its share of a fleet-wide limit, and the response headers must show what applied.
 */
export type RateLimitRecord = ThrottlerStorageRecord & { limit?: number };

/**
 * Counters for the rate limiter and the failed-login lockout.
 *
 * Semantics shared by every implementation (contract.md, "Rate limiting"):
 * - A fixed window of `ttl` ms starts at a counter's first hit; once it ends the count is 0 again.
 * - `totalHits` counts every hit of the window, those over the limit included.
 * - `isBlocked` while `totalHits > limit` in the current window. When `blockDuration > 0`, the hit that takes
 *   the count over the limit also blocks the key for `blockDuration` ms from that moment, past the end of the
 *   window if need be; that is how a lockout outlives the window in which it was earned. Hence "locked after N
 *   failures" is `limit = N - 1`: the N-th failure goes over and starts the lockout.
 * - The `throttlerName` of {@link ThrottlerStorage.increment} is ignored: callers put it into the key already.
 */
export interface RateLimitStorage extends ThrottlerStorage {
  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<RateLimitRecord>;

  /**
   * {@link increment} answered synchronously, for storages that can (process memory): the guard then decides
   * without a promise. Storages that need I/O leave it out.
   */
  incrementNow?(key: string, ttl: number, limit: number, blockDuration: number): RateLimitRecord;

  /**
   * The counter's state without counting a hit: for the headers of a response that never reached the guard,
   * and for "is this e-mail locked out?" before a password is checked. A key never hit reads as 0 hits,
   * `timeToExpire` 0.
   */
  peek(key: string, ttlMs: number, limit: number): Promise<RateLimitRecord>;

  /** Forgets the key's hits and block (tests, administration). */
  reset(key: string): Promise<void>;
}

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

/** The part of a pino logger the storages use; a plain object with these two methods will do in tests. */
export interface RateLimitLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/**
 * Builds the guard's record from remaining lifetimes in ms, the one place where both storages turn time into
 * the guard's units, so they cannot drift apart. `windowMs`/`blockMs` are 0 when the window/block is over.
 */
export function toRecord(totalHits: number, windowMs: number, blockMs: number, limit: number): ThrottlerStorageRecord {
  const overLimit = windowMs > 0 && totalHits > limit;
  const isBlocked = overLimit || blockMs > 0;
  let timeToBlockExpire = 0;
  if (isBlocked) {
    const unblockMs = overLimit && windowMs > blockMs ? windowMs : blockMs;
    timeToBlockExpire = unblockMs > 1000 ? Math.ceil(unblockMs / 1000) : 1;
  }
  return {
    totalHits: windowMs > 0 ? totalHits : 0,
    timeToExpire: windowMs > 0 ? Math.ceil(windowMs / 1000) : 0,
    isBlocked,
    timeToBlockExpire,
  };
}
