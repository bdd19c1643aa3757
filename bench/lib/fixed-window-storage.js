'use strict';
/**
 * The fixed-window memory counter the service ran before the leaky bucket (commit 1ad06eb,
 * src/rate-limiting/limiter/storage/memory-rate-limit.storage.ts, incrementNow and its housekeeping), kept here only so
 * `bench/rate-limit-storage.bench.js` can time the old and the new algorithm side by side in one run. Not used
 * by the service.
 */
const SWEEP_STEPS_PER_CALL = 2;
const EVICTION_SCAN_LIMIT = 64;

class Counter {
  constructor(key, hits, windowEnd, blockEnd, touched) {
    this.key = key;
    this.hits = hits;
    this.windowEnd = windowEnd;
    this.blockEnd = blockEnd;
    this.touched = touched;
  }
}

function toRecord(totalHits, windowMs, blockMs, limit) {
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

class FixedWindowMemoryStorage {
  constructor(clock, options = {}) {
    this.clock = clock;
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 500_000));
    this.counters = new Map();
    this.hand = this.counters.values();
    this.evicted = 0;
  }

  increment(key, ttl, limit, blockDuration) {
    return Promise.resolve(this.incrementNow(key, ttl, limit, blockDuration));
  }

  incrementNow(key, ttl, limit, blockDuration) {
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
    if (blockDuration > 0 && hits > limit && hits - 1 <= limit) counter.blockEnd = now + blockDuration;
    const blockEnd = counter.blockEnd;
    return toRecord(hits, counter.windowEnd - now, blockEnd > now ? blockEnd - now : 0, limit);
  }

  sweep(now) {
    for (let step = 0; step < SWEEP_STEPS_PER_CALL; step++) {
      const next = this.hand.next();
      if (next.done === true) {
        this.hand = this.counters.values();
        return;
      }
      const counter = next.value;
      if (now >= counter.windowEnd && now >= counter.blockEnd) this.counters.delete(counter.key);
    }
  }

  evictOne(now) {
    let lastUnblocked;
    let last;
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
      this.counters.delete(counter.key);
      this.evicted++;
      return;
    }
    const victim = lastUnblocked ?? last;
    if (victim !== undefined) {
      this.counters.delete(victim.key);
      this.evicted++;
    }
  }
}

module.exports = { FixedWindowMemoryStorage };
