import { RateLimitStorage } from '../../src/rate-limit/storage/rate-limit-storage';

/** What the shared suite needs from each implementation under test. */
export interface RateLimitStorageHarness {
  storage: RateLimitStorage;
  /** Window length for the time-dependent cases: long on a movable clock, short where time is real. */
  ttlMs: number;
  /** Added after each time step so a real clock and server-side expiry are surely past the boundary. */
  slackMs: number;
  /** Moves time forward: a ManualClock step, or a real (short, bounded) wait. */
  advance(ms: number): Promise<void>;
}

let keySequence = 0;
/** A key no other case (or earlier run against the same server) has used. */
function freshKey(label: string): string {
  keySequence += 1;
  return `${label}|${process.pid}|${Date.now().toString(36)}|${keySequence}`;
}

/**
 * The behaviour every RateLimitStorage must share (see rate-limit-storage.ts), run against each
 * implementation so memory and Redis cannot disagree on what a window or a block is.
 */
export function describeRateLimitStorage(
  name: string,
  factory: () => RateLimitStorageHarness | Promise<RateLimitStorageHarness>,
): void {
  describe(`${name}: RateLimitStorage contract`, () => {
    let h: RateLimitStorageHarness;

    beforeEach(async () => {
      h = await factory();
    });

    it('allows exactly `limit` hits in a window and blocks the next one', async () => {
      const key = freshKey('limit');
      for (let i = 1; i <= 5; i++) {
        const record = await h.storage.increment(key, h.ttlMs, 5, 0, 'default');
        expect(record).toEqual({
          totalHits: i,
          timeToExpire: Math.ceil(h.ttlMs / 1000),
          isBlocked: false,
          timeToBlockExpire: 0,
        });
      }
      const over = await h.storage.increment(key, h.ttlMs, 5, 0, 'default');
      expect(over.isBlocked).toBe(true);
      expect(over.totalHits).toBe(6);
      expect(over.timeToBlockExpire).toBeGreaterThanOrEqual(1);
      expect(over.timeToBlockExpire).toBeLessThanOrEqual(Math.ceil(h.ttlMs / 1000));
      // Hits over the limit still count.
      expect((await h.storage.increment(key, h.ttlMs, 5, 0, 'default')).totalHits).toBe(7);
    });

    it('keeps a separate counter per key', async () => {
      const a = freshKey('a');
      const b = freshKey('b');
      await h.storage.increment(a, h.ttlMs, 1, 0, 'default');
      expect((await h.storage.increment(a, h.ttlMs, 1, 0, 'default')).isBlocked).toBe(true);
      const other = await h.storage.increment(b, h.ttlMs, 1, 0, 'default');
      expect(other).toMatchObject({ totalHits: 1, isBlocked: false });
    });

    it('starts the window at the first hit and counts from 0 once it has passed', async () => {
      const key = freshKey('window');
      await h.storage.increment(key, h.ttlMs, 2, 0, 'default');
      await h.advance(h.ttlMs / 2);
      await h.storage.increment(key, h.ttlMs, 2, 0, 'default');
      expect((await h.storage.increment(key, h.ttlMs, 2, 0, 'default')).isBlocked).toBe(true);
      // Fixed, not sliding: the later hits did not extend the window begun by the first.
      await h.advance(h.ttlMs / 2 + h.slackMs);
      const fresh = await h.storage.increment(key, h.ttlMs, 2, 0, 'default');
      expect(fresh).toMatchObject({ totalHits: 1, isBlocked: false, timeToBlockExpire: 0 });
    });

    it('peeks without counting', async () => {
      const key = freshKey('peek');
      expect(await h.storage.peek(key, h.ttlMs, 3)).toEqual({
        totalHits: 0,
        timeToExpire: 0,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      await h.storage.increment(key, h.ttlMs, 3, 0, 'default');
      await h.storage.increment(key, h.ttlMs, 3, 0, 'default');
      for (let i = 0; i < 3; i++) {
        expect(await h.storage.peek(key, h.ttlMs, 3)).toMatchObject({ totalHits: 2, isBlocked: false });
      }
      expect((await h.storage.increment(key, h.ttlMs, 3, 0, 'default')).totalHits).toBe(3);
      await h.storage.increment(key, h.ttlMs, 3, 0, 'default');
      const blocked = await h.storage.peek(key, h.ttlMs, 3);
      expect(blocked).toMatchObject({ totalHits: 4, isBlocked: true });
      expect(blocked.timeToBlockExpire).toBeGreaterThanOrEqual(1);
    });

    it('keeps a key blocked for blockDuration past the end of its window', async () => {
      const key = freshKey('block');
      const blockMs = 3 * h.ttlMs;
      await h.storage.increment(key, h.ttlMs, 1, blockMs, 'default');
      const over = await h.storage.increment(key, h.ttlMs, 1, blockMs, 'default');
      expect(over.isBlocked).toBe(true);
      expect(over.timeToBlockExpire).toBe(Math.ceil(blockMs / 1000));

      await h.advance(h.ttlMs + h.slackMs);
      expect(await h.storage.peek(key, h.ttlMs, 1)).toMatchObject({ totalHits: 0, isBlocked: true });
      // A hit within the limit of the new window does not lift the block either.
      expect(await h.storage.increment(key, h.ttlMs, 1, blockMs, 'default')).toMatchObject({
        totalHits: 1,
        isBlocked: true,
      });

      await h.advance(blockMs - h.ttlMs);
      const after = await h.storage.increment(key, h.ttlMs, 1, blockMs, 'default');
      expect(after).toMatchObject({ totalHits: 1, isBlocked: false, timeToBlockExpire: 0 });
    });

    it('forgets a key on reset, block included', async () => {
      const key = freshKey('reset');
      await h.storage.increment(key, h.ttlMs, 1, 10 * h.ttlMs, 'default');
      await h.storage.increment(key, h.ttlMs, 1, 10 * h.ttlMs, 'default');
      await h.storage.reset(key);
      expect(await h.storage.peek(key, h.ttlMs, 1)).toMatchObject({ totalHits: 0, isBlocked: false });
      expect(await h.storage.increment(key, h.ttlMs, 1, 0, 'default')).toMatchObject({ totalHits: 1 });
    });

    it('counts 200 concurrent hits on one key exactly once each', async () => {
      const key = freshKey('concurrent');
      const records = await Promise.all(
        Array.from({ length: 200 }, () => h.storage.increment(key, 10 * h.ttlMs, 100, 0, 'default')),
      );
      const hits = records.map((record) => record.totalHits).sort((x, y) => x - y);
      expect(hits).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(records.filter((record) => record.isBlocked)).toHaveLength(100);
    });
  });
}
