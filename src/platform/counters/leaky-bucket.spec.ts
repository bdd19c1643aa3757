import { ManualClock } from '../../../test/support/manual-clock';
import { bucketRecord, decide } from './leaky-bucket';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';

// The source's GET limit: 30 per 3 s, so one more request fits every 100 ms.
const GET = { period: 3000, capacity: 30 };
// The working-company switch: 10 per employee, one more every 6 s.
const SWITCH = { period: 60_000, capacity: 10 };

describe('leaky bucket (GCRA) on an injected clock', () => {
  let clock: ManualClock;
  let storage: MemoryRateLimitStorage;
  const get = (key = 'k') => storage.incrementNow(key, GET.period, GET.capacity);

  beforeEach(() => {
    clock = new ManualClock('2026-11-24T12:00:00Z');
    storage = new MemoryRateLimitStorage(clock);
  });

  it('admits a burst of the capacity, saying how many more fit, and refuses the next with Retry-After 1', () => {
    for (let i = 1; i <= 30; i++) {
      const record = get();
      expect(record.isBlocked).toBe(false);
      expect(GET.capacity - record.totalHits).toBe(30 - i);
    }
    expect(get()).toEqual({ totalHits: 30, timeToExpire: 3, isBlocked: true, timeToBlockExpire: 1 });
  });

  it('drains one request every 100 ms: 5 more fit 500 ms after a full burst, and not a sixth', () => {
    for (let i = 0; i < 30; i++) get();
    clock.advance(500);
    const after = Array.from({ length: 6 }, () => !get().isBlocked);
    expect(after).toEqual([true, true, true, true, true, false]);
  });

  it('drains partially: 250 ms free two whole requests, and the remainder carries over', async () => {
    for (let i = 0; i < 30; i++) get();
    clock.advance(250);
    await expect(storage.peek('k', GET.period, GET.capacity)).resolves.toMatchObject({ totalHits: 28 });
    expect(get().isBlocked).toBe(false);
    expect(get().isBlocked).toBe(false);
    expect(get().isBlocked).toBe(true);
    // The half request drained in those 250 ms counts: 50 ms more make room for one.
    clock.advance(50);
    expect(get().isBlocked).toBe(false);
  });

  it('adds nothing for refused requests: hammering a full bucket does not delay the next slot', () => {
    for (let i = 0; i < 30; i++) get();
    for (let i = 0; i < 1000; i++) expect(get().isBlocked).toBe(true);
    clock.advance(100);
    expect(get().isBlocked).toBe(false);
  });

  it('is empty 3 seconds after it was last full (the source\'s "count reset to 0")', () => {
    for (let i = 0; i < 30; i++) get();
    clock.advance(2999);
    expect(get().isBlocked).toBe(false);
    clock.advance(3000);
    for (let i = 1; i <= 30; i++) expect(get()).toMatchObject({ isBlocked: false, totalHits: i });
    expect(get().isBlocked).toBe(true);
  });

  it('admits 30 + 10 per second to a client sending 20 GET/s for 6 s: 90, where a fixed window gave 60', () => {
    let admitted = 0;
    for (let i = 0; i < 120; i++) {
      if (!get().isBlocked) admitted++;
      clock.advance(50);
    }
    // 30 at once, then one every 100 ms for the remaining ~6 s.
    expect(admitted).toBeGreaterThanOrEqual(88);
    expect(admitted).toBeLessThanOrEqual(90);
  });

  it('never admits more than capacity + elapsed × rate, whatever the arrival pattern', () => {
    let admitted = 0;
    const start = clock.nowMs();
    for (let i = 0; i < 2000; i++) {
      if (!get().isBlocked) admitted++;
      clock.advance(Math.floor(Math.random() * 40));
      const elapsed = clock.nowMs() - start;
      expect(admitted).toBeLessThanOrEqual(GET.capacity + Math.floor(elapsed / 100));
    }
  });

  it('limits company switches to 10 at once, then one every 6 s, and says Retry-After 6', () => {
    const switchOnce = () => storage.incrementNow('switch:1', SWITCH.period, SWITCH.capacity);
    for (let i = 0; i < 10; i++) expect(switchOnce().isBlocked).toBe(false);
    expect(switchOnce()).toMatchObject({ isBlocked: true, timeToBlockExpire: 6 });
    clock.advance(5999);
    expect(switchOnce()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
    clock.advance(1);
    expect(switchOnce().isBlocked).toBe(false);
    expect(switchOnce().isBlocked).toBe(true);
  });

  it('starts a bucket afresh when the clock is set back, rather than refusing for as long as it jumped', () => {
    for (let i = 0; i < 30; i++) get();
    expect(get().isBlocked).toBe(true);
    clock.advance(-24 * 3600_000);
    expect(get()).toMatchObject({ isBlocked: false, totalHits: 1 });
  });

  it('counts limits that do not divide the period exactly without losing a request to rounding', () => {
    const key = 'odd';
    for (let i = 1; i <= 7; i++) expect(storage.incrementNow(key, 3000, 7).isBlocked).toBe(false);
    expect(storage.incrementNow(key, 3000, 7).isBlocked).toBe(true);
    clock.advance(3000);
    expect(storage.incrementNow(key, 3000, 7)).toMatchObject({ isBlocked: false, totalHits: 1 });
  });
});

describe('leaky-bucket arithmetic', () => {
  it('refuses without changing the level', () => {
    expect(decide(2950, 3000, 30)).toEqual({ admitted: false, levelMs: 2950 });
    expect(decide(2900, 3000, 30)).toEqual({ admitted: true, levelMs: 3000 });
  });

  it('answers Retry-After in whole seconds, rounded up, at least 1', () => {
    // DELETE: 3 per 3 s, a full bucket frees a slot in 1 s; the switch: 6 s.
    expect(bucketRecord(false, 3000, 3000, 3).timeToBlockExpire).toBe(1);
    expect(bucketRecord(false, 3000, 3000, 30).timeToBlockExpire).toBe(1);
    expect(bucketRecord(false, 60_000, 60_000, 10).timeToBlockExpire).toBe(6);
    expect(bucketRecord(false, 59_000, 60_000, 10).timeToBlockExpire).toBe(5);
    expect(bucketRecord(true, 100, 3000, 30)).toEqual({
      totalHits: 1,
      timeToExpire: 1,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });
});
