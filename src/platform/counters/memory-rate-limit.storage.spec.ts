import { ManualClock } from '../../../test/support/manual-clock';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { describeRateLimitStorage } from '../../../test/support/rate-limit-storage.contract';
import { benchmarkKey } from '../../../bench/lib/storage-benchmark';

describeRateLimitStorage('memory', () => {
  const clock = new ManualClock('2025-01-01T00:00:00Z');
  return {
    storage: new MemoryRateLimitStorage(clock),
    ttlMs: 3000,
    slackMs: 1,
    advance: async (ms) => clock.advance(ms),
  };
});

describe('MemoryRateLimitStorage', () => {
  let clock: ManualClock;

  beforeEach(() => {
    clock = new ManualClock('2025-01-01T00:00:00Z');
  });

  it('sweeps expired counters as calls come, with no timer', async () => {
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout');
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    const setImmediateSpy = jest.spyOn(global, 'setImmediate');
    try {
      const storage = new MemoryRateLimitStorage(clock);
      for (let i = 0; i < 10_000; i++) await storage.increment(benchmarkKey(i), 3000, 10, 0, 'default');
      expect(storage.size).toBe(10_000);

      clock.advance(3000);
      // One lap of the sweep hand is size / 2 calls; allow two.
      for (let i = 0; i < 10_000; i++) await storage.increment('busy', 3000, 1e9, 0, 'default');
      expect(storage.size).toBe(1);
      expect(storage.evictions).toBe(0);
      expect(setTimeoutSpy).not.toHaveBeenCalled();
      expect(setIntervalSpy).not.toHaveBeenCalled();
      expect(setImmediateSpy).not.toHaveBeenCalled();
    } finally {
      setTimeoutSpy.mockRestore();
      setIntervalSpy.mockRestore();
      setImmediateSpy.mockRestore();
    }
  });

  it('keeps a held login lock after its hits, even under a sweep', async () => {
    const storage = new MemoryRateLimitStorage(clock);
    await storage.hitWindow('locked', 60_000, 1);
    for (let i = 0; i < 1000; i++) await storage.increment(benchmarkKey(i), 1000, 10, 0, 'default');
    clock.advance(5000);
    for (let i = 0; i < 2000; i++) await storage.increment('busy', 1000, 1000, 0, 'default');
    expect(storage.size).toBe(2);
    expect((await storage.peekWindow('locked', 60_000, 1)).hits).toBe(1);
  });

  it('under a key flood, evicts one-hit keys before busy counters and held locks', async () => {
    const storage = new MemoryRateLimitStorage(clock, { maxEntries: 1000 });
    const hot = Array.from({ length: 50 }, (_, i) => `hot-${i}`);
    await storage.hitWindow('locked', 60_000, 1);
    // A client that has come back once is "busy"; a key seen once is what a flood is made of.
    let hotHits = 2;
    for (const key of hot) {
      await storage.increment(key, 60_000, 100_000, 0, 'default');
      await storage.increment(key, 60_000, 100_000, 0, 'default');
    }
    for (let i = 0; i < 200_000; i++) {
      await storage.increment(`flood-${i}`, 60_000, 10, 0, 'default');
      if (i % 100 === 0) {
        hotHits++;
        for (const key of hot) await storage.increment(key, 60_000, 100_000, 0, 'default');
      }
    }
    expect(storage.size).toBe(1000);
    for (const key of hot) expect((await storage.peek(key, 60_000, 100_000)).totalHits).toBe(hotHits);
    expect((await storage.peekWindow('locked', 60_000, 1)).hits).toBe(1);
  });

  it('locks an e-mail for the rest of a 15-minute window after its 10th failure', async () => {
    const storage = new MemoryRateLimitStorage(clock);
    const fifteenMinutes = 15 * 60_000;
    const fail = () => storage.hitWindow('login|someone@example.com', fifteenMinutes, 10);
    for (let i = 0; i < 9; i++) {
      await fail();
      clock.advance(60_000);
    }
    expect((await storage.peekWindow('login|someone@example.com', fifteenMinutes, 10)).hits).toBe(9);
    expect(await fail()).toEqual({ hits: 10, secondsLeft: 360 });
    clock.advance(6 * 60_000 - 1);
    expect((await storage.peekWindow('login|someone@example.com', fifteenMinutes, 10)).hits).toBe(10);
    clock.advance(1);
    expect((await storage.peekWindow('login|someone@example.com', fifteenMinutes, 10)).hits).toBe(0);
  });

  it('decides synchronously with incrementNow, on the same buckets as increment', async () => {
    const storage = new MemoryRateLimitStorage(clock);
    expect(storage.incrementNow('k', 3000, 2)).toEqual({
      totalHits: 1,
      timeToExpire: 2,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect((await storage.increment('k', 3000, 2, 0, 'default')).totalHits).toBe(2);
    expect(storage.incrementNow('k', 3000, 2)).toMatchObject({ totalHits: 2, isBlocked: true });
    clock.advance(3000);
    expect(storage.incrementNow('k', 3000, 2)).toMatchObject({ totalHits: 1, isBlocked: false });
  });
});
