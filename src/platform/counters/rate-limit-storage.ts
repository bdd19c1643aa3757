import type { ThrottlerStorage } from '@nestjs/throttler';

/**
 * What a check answers, exactly as `@nestjs/throttler`'s guard reads it. Derived from the interface because the
 * package does not export the record type from its entry point.
 *
 * Units follow the guard, which writes them unchanged into `Retry-After`: whole seconds, rounded up.
 * `timeToBlockExpire` is at least 1 while blocked (a `Retry-After: 0` would invite an immediate retry that is
 * still refused) and 0 otherwise.
 */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * A record plus, when the storage applied a limit other than the one asked for, that limit: while Redis is away
 * each instance allows only its share of a fleet-wide limit, and the response headers must show what applied.
 */
export type RateLimitRecord = ThrottlerStorageRecord & { limit?: number };

/** A fixed-window count (the failed-login lock): hits so far and whole seconds until the window ends. */
export interface WindowRecord {
  hits: number;
  /** Whole seconds until the window ends, rounded up; 0 when no window runs. */
  secondsLeft: number;
  /** As in {@link RateLimitRecord}: the limit the storage applied when it differs from the one asked for. */
  limit?: number;
}

/**
 * Leaky buckets (see leaky-bucket.ts) for the request rate limit and the company-switch limit: the
 * @nestjs/throttler storage contract, shared by every implementation (docs/contract.md, "Rate limiting"):
 * - `limit` is the capacity and `ttl` the time in ms in which a full bucket drains: one more request fits
 *   every `ttl / limit` ms, and a bucket is empty again `ttl` ms after it was last full.
 * - A request is admitted when the level after it is at most the capacity; a refused request adds nothing.
 * - `totalHits` is the level after the decision in whole requests (rounded up), so `limit - totalHits` requests
 *   more would be admitted at once; `isBlocked` means refused, and `timeToBlockExpire` then says in whole
 *   seconds (at least 1) when the next request fits.
 * - `blockDuration` and `throttlerName` of {@link ThrottlerStorage.increment} are ignored: the bucket is its own
 *   block, and callers put the name into the key already.
 */
export interface BucketStorage extends ThrottlerStorage {
  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<RateLimitRecord>;

  /**
   * The bucket's state without adding to it: for the headers of a response that never reached the guard.
   * `isBlocked` says whether a request now would be refused. A key never hit reads as empty.
   */
  peek(key: string, ttlMs: number, limit: number): Promise<RateLimitRecord>;

  /**
   * A request's admission in one decision (one round trip on Redis): `cost` slots of the bucket (a request
   * fits when the level after all of them is at most the capacity; a refused one adds nothing) and, when `lease`
   * is given, a lease under that credential's concurrency cap, taken only if the bucket admits. Refused by
   * either: nothing changes. The lease is the caller's to release when the request ends.
   */
  admit(key: string, ttl: number, limit: number, cost: number, lease?: LeaseAsk): Promise<AdmitRecord>;

  /** Leases held now under `key` (tests, and the figures of an operator looking for a leak). */
  leases(key: string): Promise<number>;
}

/**
 * A request's place under the concurrency cap (docs/contract.md, "Beyond the bucket"): held while the request is
 * in flight, returned once when it ends. {@link release} is bound (it can be handed to an event emitter as is)
 * and does nothing the second time.
 */
export interface Lease {
  readonly release: () => void;
}

/**
 * What {@link BucketStorage.admit} answers: the bucket's record and, when a lease was asked for, the cap's part.
 * - `overCap`: the bucket would have admitted the request, but the credential already had `cap` requests in
 *   flight; the request is refused and the bucket is unchanged (the record shows it as it stands).
 * - `lease`: the request was admitted and holds a lease; undefined when refused or when none was asked for.
 * - `cap`: the cap the storage applied when it differs from the one asked for (while Redis is away, this
 *   instance's share), as `limit` is for the bucket.
 */
export type AdmitRecord = RateLimitRecord & { overCap?: boolean; lease?: Lease; cap?: number };

/** The lease half of an admission: which credential's leases, and how many may be held at once. */
export interface LeaseAsk {
  key: string;
  cap: number;
}

/**
 * Fixed windows for the failed-login lock, whose rule is a count and not a rate ("10 failures within 15 minutes
 * lock until the 15 minutes pass"): a window of `windowMs` starts at the first hit, counts every hit, and is
 * forgotten when it ends.
 */
export interface WindowStorage {
  /** Counts one hit in the key's fixed window, starting the window on the first. */
  hitWindow(key: string, windowMs: number, limit: number): Promise<WindowRecord>;

  /** The key's window count without counting; 0 hits when no window runs. */
  peekWindow(key: string, windowMs: number, limit: number): Promise<WindowRecord>;

  /** Forgets the key (tests, administration, a successful login). */
  reset(key: string): Promise<void>;
}

/**
 * What CountersModule provides under {@link RATE_LIMIT_STORAGE}: buckets and windows on one set of counters
 * (in memory, or in Redis with memory while it is away), so one cap and one outage policy cover both. A key is
 * used as a bucket or as a window, never both; `reset` forgets either. Readers depend on the half they use: the
 * request guard on {@link BucketStorage}, the login lock on {@link WindowStorage}.
 */
export interface RateLimitStorage extends BucketStorage, WindowStorage {}

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

/** The part of a pino logger the storages use; a plain object with these two methods will do in tests. */
export interface RateLimitLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/** Whole seconds, rounded up, of a remaining lifetime in ms; 0 when over. */
export const wholeSeconds = (ms: number): number => (ms > 0 ? Math.ceil(ms / 1000) : 0);
