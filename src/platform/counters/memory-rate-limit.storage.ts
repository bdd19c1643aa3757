import { Clock } from '../common/clock/clock';
import { backlog, bucketRecord, decide } from './leaky-bucket';
import { MemoryLeases } from './memory-leases';
import {
  type AdmitRecord,
  type LeaseAsk,
  RateLimitStorage,
  ThrottlerStorageRecord,
  WindowRecord,
  wholeSeconds,
} from './rate-limit-storage';

export interface MemoryRateLimitStorageOptions {
  /** Hard cap on counters held; past it a new key evicts an old one. */
  maxEntries?: number;
}

export const DEFAULT_MAX_ENTRIES = 500_000;

// Each call moves the sweep hand this many entries. Every call adds at most one entry, so the hand outruns
// growth and visits the whole map within size/2 calls: a counter that ran out lives at most one lap.
const SWEEP_STEPS_PER_CALL = 2;
// How far eviction looks for a cheap victim before settling for any unblocked one; bounds the cost of a
// new key when the map is full of busy counters.
const EVICTION_SCAN_LIMIT = 64;

/** One bucket or window. Mutated in place so that a hit on a known key allocates nothing but its answer. */
class Counter {
  constructor(
    // Kept so the sweep, which walks values, can delete without a second lookup.
    readonly key: string,
    // A bucket's theoretical arrival time (when it is empty again), or the end of a window: past it, the
    // counter holds nothing and may be dropped.
    public until: number,
    // A window's count; unused by buckets.
    public hits: number,
    // A window at its limit (a login lock): never evicted while it lasts, so flooding cannot buy it back.
    public held: boolean,
    // Set by every hit after the first: the "second chance" bit that spares busy counters from eviction.
    public touched: boolean,
  ) {}
}

/**
 * Buckets and windows in this process, for a single instance or while Redis is away.
 *
 * Housekeeping runs on the calls themselves, never on a timer: a persistent iterator (the "hand") walks the
 * map a couple of entries per call, dropping counters that have run out (an empty bucket, an ended window).
 * The map is capped; a new key beyond the cap evicts CLOCK-style from the hand's position: a counter that has
 * run out if one is near, otherwise the first counter hit only once (what a key flood is made of), while
 * counters hit again since the hand last passed get a second chance and held locks are skipped.
 */
export class MemoryRateLimitStorage implements RateLimitStorage {
  readonly maxEntries: number;
  private readonly counters = new Map<string, Counter>();
  /** The concurrency cap's leases; not counters (they never expire, the sweep and the cap leave them alone). */
  readonly leasesHeld = new MemoryLeases();
  private hand: Iterator<Counter> = this.counters.values();
  private evicted = 0;
  // Times are kept relative to this instant: an epoch in ms (~1.8e12) leaves doubles a resolution of 0.24 µs,
  // and a bucket's TAT is advanced by fractional intervals request after request.
  private readonly epoch: number;

  constructor(
    private readonly clock: Clock,
    options: MemoryRateLimitStorageOptions = {},
  ) {
    this.epoch = clock.nowMs();
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? DEFAULT_MAX_ENTRIES));
  }

  /** Counters currently held, expired ones not yet swept included. */
  get size(): number {
    return this.counters.size;
  }

  /** Live counters dropped because the cap was reached. */
  get evictions(): number {
    return this.evicted;
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration?: number,
    _throttlerName?: string,
  ): Promise<ThrottlerStorageRecord> {
    return Promise.resolve(this.incrementNow(key, ttl, limit));
  }

  admit(key: string, ttl: number, limit: number, cost: number, lease?: LeaseAsk): Promise<AdmitRecord> {
    return Promise.resolve(this.admitNow(key, ttl, limit, cost, lease));
  }

  /** {@link admit} without the promise. The cap is asked only once the bucket would admit, and before it is charged. */
  admitNow(key: string, ttl: number, limit: number, cost: number, lease?: LeaseAsk): AdmitRecord {
    if (lease === undefined) return this.incrementNow(key, ttl, limit, 0, cost);
    if (this.leasesHeld.count(lease.key) >= lease.cap) {
      const record: AdmitRecord = this.peekNow(key, ttl, limit, cost);
      // The bucket's own answer wins: refused by both is the bucket's 429, with its Retry-After.
      if (record.isBlocked) return record;
      record.overCap = true;
      return record;
    }
    const record: AdmitRecord = this.incrementNow(key, ttl, limit, 0, cost);
    if (!record.isBlocked) record.lease = this.leasesHeld.take(lease.key, lease.cap);
    return record;
  }

  leases(key: string): Promise<number> {
    return Promise.resolve(this.leasesHeld.count(key));
  }

  /** {@link increment} without the promise: the guard's synchronous path when the counters are in memory. */
  incrementNow(key: string, ttl: number, limit: number, _blockDuration?: number, cost = 1): ThrottlerStorageRecord {
    const now = this.clock.nowMs() - this.epoch;
    this.sweep(now);
    const period = Math.max(1, ttl);
    const capacity = Math.max(1, limit);
    let counter = this.counters.get(key);
    const level = counter === undefined ? 0 : backlog(counter.until, now, period);
    const decision = decide(level, period, capacity, cost);
    if (decision.admitted) {
      if (counter === undefined) {
        if (this.counters.size >= this.maxEntries) this.evictOne(now);
        counter = new Counter(key, now + decision.levelMs, 0, false, false);
        this.counters.set(key, counter);
      } else {
        counter.touched = true;
        counter.until = now + decision.levelMs;
      }
    } else if (counter !== undefined) {
      counter.touched = true;
    }
    return bucketRecord(decision.admitted, decision.levelMs, period, capacity, cost);
  }

  peek(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    return Promise.resolve(this.peekNow(key, ttlMs, limit));
  }

  private peekNow(key: string, ttlMs: number, limit: number, cost = 1): ThrottlerStorageRecord {
    const now = this.clock.nowMs() - this.epoch;
    this.sweep(now);
    const counter = this.counters.get(key);
    const period = Math.max(1, ttlMs);
    const level = counter === undefined ? 0 : backlog(counter.until, now, period);
    const capacity = Math.max(1, limit);
    return bucketRecord(decide(level, period, capacity, cost).admitted, level, period, capacity, cost);
  }

  hitWindow(key: string, windowMs: number, limit: number): Promise<WindowRecord> {
    const now = this.clock.nowMs() - this.epoch;
    this.sweep(now);
    let counter = this.counters.get(key);
    if (counter === undefined) {
      if (this.counters.size >= this.maxEntries) this.evictOne(now);
      counter = new Counter(key, now + Math.max(1, windowMs), 0, false, false);
      this.counters.set(key, counter);
    } else {
      counter.touched = true;
      if (now >= counter.until) {
        counter.hits = 0;
        counter.held = false;
        counter.until = now + Math.max(1, windowMs);
      }
    }
    counter.hits++;
    if (counter.hits >= limit) counter.held = true;
    return Promise.resolve({ hits: counter.hits, secondsLeft: wholeSeconds(counter.until - now) });
  }

  peekWindow(key: string, _windowMs: number, _limit: number): Promise<WindowRecord> {
    const now = this.clock.nowMs() - this.epoch;
    this.sweep(now);
    const counter = this.counters.get(key);
    if (counter === undefined || now >= counter.until) return Promise.resolve({ hits: 0, secondsLeft: 0 });
    return Promise.resolve({ hits: counter.hits, secondsLeft: wholeSeconds(counter.until - now) });
  }

  reset(key: string): Promise<void> {
    this.counters.delete(key);
    return Promise.resolve();
  }

  private sweep(now: number): void {
    for (let step = 0; step < SWEEP_STEPS_PER_CALL; step++) {
      const next = this.hand.next();
      if (next.done === true) {
        // A Map iterator that has finished stays finished; the next lap needs a fresh one.
        this.hand = this.counters.values();
        return;
      }
      const counter = next.value;
      if (now >= counter.until) this.counters.delete(counter.key);
    }
  }

  private evictOne(now: number): void {
    let lastUnheld: Counter | undefined;
    let last: Counter | undefined;
    for (let step = 0; step < EVICTION_SCAN_LIMIT; step++) {
      let next = this.hand.next();
      if (next.done === true) {
        this.hand = this.counters.values();
        next = this.hand.next();
        if (next.done === true) return;
      }
      const counter = next.value;
      last = counter;
      if (now >= counter.until) {
        this.counters.delete(counter.key);
        return;
      }
      if (counter.held) continue;
      lastUnheld = counter;
      if (counter.touched) {
        counter.touched = false;
        continue;
      }
      this.drop(counter);
      return;
    }
    // Every counter looked at was busy: give up one anyway, an unheld one if there was any.
    const victim = lastUnheld ?? last;
    if (victim !== undefined) this.drop(victim);
  }

  private drop(counter: Counter): void {
    this.counters.delete(counter.key);
    this.evicted++;
  }
}
