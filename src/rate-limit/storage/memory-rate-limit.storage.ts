import { Clock } from '../../common/clock/clock';
import { RateLimitStorage, ThrottlerStorageRecord, toRecord } from './rate-limit-storage';

export interface MemoryRateLimitStorageOptions {
  /** Hard cap on counters held; past it a new key evicts an old one. */
  maxEntries?: number;
}

export const DEFAULT_MAX_ENTRIES = 500_000;

// Each call moves the sweep hand this many entries. Every call adds at most one entry, so the hand outruns
// growth and visits the whole map within size/2 calls: an expired counter lives at most one lap.
const SWEEP_STEPS_PER_CALL = 2;
// How far eviction looks for a cheap victim before settling for any unblocked one; bounds the cost of a
// new key when the map is full of busy counters.
const EVICTION_SCAN_LIMIT = 64;

/** One counter. Mutated in place so that a hit on a known key allocates nothing but its answer. */
class Counter {
  constructor(
    // Kept so the sweep, which walks values, can delete without a second lookup.
    readonly key: string,
    public hits: number,
    public windowEnd: number,
    public blockEnd: number,
    // Set by every hit after the first: the "second chance" bit that spares busy counters from eviction.
    public touched: boolean,
  ) {}
}

/**
 * Counters in this process, for a single instance or while Redis is away.
 *
 * Housekeeping runs on the calls themselves, never on a timer: a persistent iterator (the "hand") walks the
 * map a couple of entries per call, dropping counters whose window and block are both over. The map is capped;
 * a new key beyond the cap evicts CLOCK-style from the hand's position: an expired counter if one is near,
 * otherwise the first counter hit only once (what a key flood is made of), while counters hit again since the
 * hand last passed get a second chance and blocked ones are skipped, so flooding cannot buy back a lockout.
 */
export class MemoryRateLimitStorage implements RateLimitStorage {
  readonly maxEntries: number;
  private readonly counters = new Map<string, Counter>();
  private hand: Iterator<Counter> = this.counters.values();
  private evicted = 0;

  constructor(
    private readonly clock: Clock,
    options: MemoryRateLimitStorageOptions = {},
  ) {
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
    blockDuration: number,
    _throttlerName?: string,
  ): Promise<ThrottlerStorageRecord> {
    return Promise.resolve(this.incrementNow(key, ttl, limit, blockDuration));
  }

  /** {@link increment} without the promise: the guard's synchronous path when the counters are in memory. */
  incrementNow(key: string, ttl: number, limit: number, blockDuration: number): ThrottlerStorageRecord {
    const now = this.clock.nowMs();
    this.sweep(now);
    let counter = this.counters.get(key);
    if (counter === undefined) {
      if (this.counters.size >= this.maxEntries) this.evictOne(now);
      counter = new Counter(key, 0, now + Math.max(1, ttl), 0, false);
      this.counters.set(key, counter);
    } else {
      counter.touched = true;
      if (now >= counter.windowEnd) {
        counter.hits = 0;
        counter.windowEnd = now + Math.max(1, ttl);
      }
    }
    const hits = ++counter.hits;
    // Only the hit that crosses the limit starts a block, so hammering a blocked key does not extend it.
    if (blockDuration > 0 && hits > limit && hits - 1 <= limit) counter.blockEnd = now + blockDuration;
    const blockEnd = counter.blockEnd;
    return toRecord(hits, counter.windowEnd - now, blockEnd > now ? blockEnd - now : 0, limit);
  }

  peek(key: string, _ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = this.clock.nowMs();
    this.sweep(now);
    const counter = this.counters.get(key);
    if (counter === undefined) return Promise.resolve(toRecord(0, 0, 0, limit));
    const { windowEnd, blockEnd } = counter;
    return Promise.resolve(
      toRecord(counter.hits, windowEnd > now ? windowEnd - now : 0, blockEnd > now ? blockEnd - now : 0, limit),
    );
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
      if (now >= counter.windowEnd && now >= counter.blockEnd) this.counters.delete(counter.key);
    }
  }

  private evictOne(now: number): void {
    let lastUnblocked: Counter | undefined;
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
      if (now >= counter.windowEnd && now >= counter.blockEnd) {
        this.counters.delete(counter.key);
        return;
      }
      if (counter.blockEnd > now) continue;
      lastUnblocked = counter;
      if (counter.touched) {
        counter.touched = false;
        continue;
      }
      this.drop(counter);
      return;
    }
    // Every counter looked at was busy: give up one anyway, an unblocked one if there was any.
    const victim = lastUnblocked ?? last;
    if (victim !== undefined) this.drop(victim);
  }

  private drop(counter: Counter): void {
    this.counters.delete(counter.key);
    this.evicted++;
  }
}
