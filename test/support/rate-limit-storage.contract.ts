import { RateLimitStorage } from '../../src/platform/counters/rate-limit-storage';

/** What the shared suite needs from each implementation under test. */
export interface RateLimitStorageHarness {
  storage: RateLimitStorage;
  /** Drain period / window length for the time-dependent cases: long on a movable clock, short where time is real. */
  ttlMs: number;
  /** Added after each time step so a real clock and server-side expiry are surely past the boundary. */
  slackMs: number;
  /** Moves time forward: a ManualClock step, or a real (short, bounded) wait. */
  advance(ms: number): Promise<void>;
  /**
   * Moves one fixed window's time forward where time is the server's: its remaining life shortened on the server
   * (an expiry reached is the server's own), so a stalled machine cannot end the window early. Else {@link advance}.
   */
  advanceWindow?(key: string, ms: number): Promise<void>;
  /** Moves one bucket's time forward where time is the server's: it drains `ms` at once. Else {@link advance}. */
  advanceBucket?(key: string, ms: number): Promise<void>;
}

let keySequence = 0;
/** A key no other case (or earlier run against the same server) has used. */
function freshKey(label: string): string {
  keySequence += 1;
  return `${label}|${process.pid}|${Date.now().toString(36)}|${keySequence}`;
}

/** Polls `done` (a lease's return is fire and forget on Redis) for up to 2 s. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 100 && !(await done()); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await done()).toBe(true);
}

/** A bucket's time moved forward: on the server where the harness can, else by the harness's clock. */
function drain(h: RateLimitStorageHarness, key: string, ms: number): Promise<void> {
  return h.advanceBucket ? h.advanceBucket(key, ms) : h.advance(ms);
}

// Long enough that a real clock drains nothing noticeable during a burst of round trips.
const HOUR_MS = 3_600_000;

/**
 * The behaviour every RateLimitStorage must share (see rate-limit-storage.ts), run against each
 * implementation so memory and Redis cannot disagree on what a bucket or a window is.
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

    it('admits a full bucket at once, counting down what remains, then refuses with a Retry-After', async () => {
      const key = freshKey('burst');
      for (let i = 1; i <= 5; i++) {
        const record = await h.storage.increment(key, HOUR_MS, 5, 0, 'default');
        expect(record).toMatchObject({ totalHits: i, isBlocked: false, timeToBlockExpire: 0 });
      }
      const over = await h.storage.increment(key, HOUR_MS, 5, 0, 'default');
      // One request drains in 12 minutes: that is when the next one fits.
      expect(over).toMatchObject({ totalHits: 5, isBlocked: true });
      expect(over.timeToBlockExpire).toBeGreaterThan(715);
      expect(over.timeToBlockExpire).toBeLessThanOrEqual(720);
    });

    it('adds nothing for a refused request', async () => {
      const key = freshKey('refused');
      const interval = h.ttlMs / 2;
      await h.storage.increment(key, h.ttlMs, 2, 0, 'default');
      await h.storage.increment(key, h.ttlMs, 2, 0, 'default');
      for (let i = 0; i < 5; i++)
        expect((await h.storage.increment(key, h.ttlMs, 2, 0, 'default')).isBlocked).toBe(true);
      // Had the refusals counted, the bucket would still be over-full after one interval.
      await drain(h, key, interval + h.slackMs);
      expect((await h.storage.increment(key, h.ttlMs, 2, 0, 'default')).isBlocked).toBe(false);
      expect((await h.storage.increment(key, h.ttlMs, 2, 0, 'default')).isBlocked).toBe(true);
    });

    it('drains continuously: half the period frees half the capacity', async () => {
      const key = freshKey('drain');
      for (let i = 0; i < 4; i++) await h.storage.increment(key, h.ttlMs, 4, 0, 'default');
      await drain(h, key, h.ttlMs / 2 + h.slackMs);
      const admitted = [];
      for (let i = 0; i < 4; i++) admitted.push(!(await h.storage.increment(key, h.ttlMs, 4, 0, 'default')).isBlocked);
      expect(admitted).toEqual([true, true, false, false]);
    });

    it('is empty again one period after it was last full', async () => {
      const key = freshKey('empty');
      for (let i = 0; i < 3; i++) await h.storage.increment(key, h.ttlMs, 3, 0, 'default');
      expect(await h.storage.peek(key, h.ttlMs, 3)).toMatchObject({ totalHits: 3, isBlocked: true });
      await drain(h, key, h.ttlMs + h.slackMs);
      expect(await h.storage.peek(key, h.ttlMs, 3)).toEqual({
        totalHits: 0,
        timeToExpire: 0,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      for (let i = 1; i <= 3; i++) {
        expect(await h.storage.increment(key, h.ttlMs, 3, 0, 'default')).toMatchObject({
          totalHits: i,
          isBlocked: false,
        });
      }
    });

    it('keeps a separate bucket per key', async () => {
      const a = freshKey('a');
      const b = freshKey('b');
      await h.storage.increment(a, HOUR_MS, 1, 0, 'default');
      expect((await h.storage.increment(a, HOUR_MS, 1, 0, 'default')).isBlocked).toBe(true);
      expect(await h.storage.increment(b, HOUR_MS, 1, 0, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
    });

    it('peeks without adding', async () => {
      const key = freshKey('peek');
      expect(await h.storage.peek(key, HOUR_MS, 3)).toEqual({
        totalHits: 0,
        timeToExpire: 0,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      await h.storage.increment(key, HOUR_MS, 3, 0, 'default');
      await h.storage.increment(key, HOUR_MS, 3, 0, 'default');
      for (let i = 0; i < 3; i++) {
        expect(await h.storage.peek(key, HOUR_MS, 3)).toMatchObject({ totalHits: 2, isBlocked: false });
      }
      expect((await h.storage.increment(key, HOUR_MS, 3, 0, 'default')).totalHits).toBe(3);
      const full = await h.storage.peek(key, HOUR_MS, 3);
      expect(full).toMatchObject({ totalHits: 3, isBlocked: true });
      expect(full.timeToBlockExpire).toBeGreaterThanOrEqual(1);
    });

    it('admits a request of cost N as N slots at once, all or none', async () => {
      const key = freshKey('cost');
      expect(await h.storage.admit(key, HOUR_MS, 5, 3)).toMatchObject({ totalHits: 3, isBlocked: false });
      const over = await h.storage.admit(key, HOUR_MS, 5, 3);
      // Two slots are free, three are asked: refused, nothing taken, and it fits once one slot (12 min) drains.
      expect(over).toMatchObject({ totalHits: 3, isBlocked: true });
      expect(over.timeToBlockExpire).toBeGreaterThan(715);
      expect(over.timeToBlockExpire).toBeLessThanOrEqual(720);
      expect(await h.storage.admit(key, HOUR_MS, 5, 2)).toMatchObject({ totalHits: 5, isBlocked: false });
      expect((await h.storage.admit(key, HOUR_MS, 5, 1)).isBlocked).toBe(true);
    });

    it('holds a credential to its cap of leases, leaving the bucket alone when the cap refuses', async () => {
      const bucket = freshKey('capped');
      const lease = { key: freshKey('leases'), cap: 2 };
      const first = await h.storage.admit(bucket, HOUR_MS, 10, 1, lease);
      const second = await h.storage.admit(bucket, HOUR_MS, 10, 1, lease);
      expect([first.lease, second.lease].every((held) => held !== undefined)).toBe(true);
      expect(await h.storage.leases(lease.key)).toBe(2);
      const third = await h.storage.admit(bucket, HOUR_MS, 10, 1, lease);
      expect(third).toMatchObject({ overCap: true, isBlocked: false, totalHits: 2 });
      expect(third.lease).toBeUndefined();
      expect((await h.storage.peek(bucket, HOUR_MS, 10)).totalHits).toBe(2);
      // Returned twice counts once.
      first.lease?.release();
      first.lease?.release();
      await until(async () => (await h.storage.leases(lease.key)) === 1);
      const fourth = await h.storage.admit(bucket, HOUR_MS, 10, 1, lease);
      expect(fourth.lease).toBeDefined();
      expect(await h.storage.leases(lease.key)).toBe(2);
      second.lease?.release();
      fourth.lease?.release();
      await until(async () => (await h.storage.leases(lease.key)) === 0);
    });

    it('takes no lease for a request its bucket refuses', async () => {
      const bucket = freshKey('full');
      const lease = { key: freshKey('unused'), cap: 5 };
      const admitted = await h.storage.admit(bucket, HOUR_MS, 1, 1, lease);
      const refused = await h.storage.admit(bucket, HOUR_MS, 1, 1, lease);
      expect(refused).toMatchObject({ isBlocked: true });
      expect(refused.overCap).toBeFalsy();
      expect(refused.lease).toBeUndefined();
      expect(await h.storage.leases(lease.key)).toBe(1);
      admitted.lease?.release();
    });

    it('counts a fixed window from its first hit and forgets it when it ends', async () => {
      const key = freshKey('window');
      expect(await h.storage.peekWindow(key, h.ttlMs, 3)).toEqual({ hits: 0, secondsLeft: 0 });
      expect(await h.storage.hitWindow(key, h.ttlMs, 3)).toEqual({ hits: 1, secondsLeft: Math.ceil(h.ttlMs / 1000) });
      const advance = (ms: number) => (h.advanceWindow ? h.advanceWindow(key, ms) : h.advance(ms));
      await advance(h.ttlMs / 2);
      for (let i = 2; i <= 4; i++) expect((await h.storage.hitWindow(key, h.ttlMs, 3)).hits).toBe(i);
      expect((await h.storage.peekWindow(key, h.ttlMs, 3)).hits).toBe(4);
      // Fixed, not sliding: the later hits did not extend the window begun by the first.
      await advance(h.ttlMs / 2 + h.slackMs);
      expect(await h.storage.peekWindow(key, h.ttlMs, 3)).toEqual({ hits: 0, secondsLeft: 0 });
      expect((await h.storage.hitWindow(key, h.ttlMs, 3)).hits).toBe(1);
    });

    it('forgets a key on reset, bucket or window', async () => {
      const bucket = freshKey('reset-bucket');
      const window = freshKey('reset-window');
      await h.storage.increment(bucket, HOUR_MS, 1, 0, 'default');
      await h.storage.hitWindow(window, HOUR_MS, 1);
      await h.storage.reset(bucket);
      await h.storage.reset(window);
      expect(await h.storage.peek(bucket, HOUR_MS, 1)).toMatchObject({ totalHits: 0, isBlocked: false });
      expect(await h.storage.peekWindow(window, HOUR_MS, 1)).toEqual({ hits: 0, secondsLeft: 0 });
    });

    it('admits exactly the capacity of 200 concurrent requests on one key', async () => {
      const key = freshKey('concurrent');
      const records = await Promise.all(
        Array.from({ length: 200 }, () => h.storage.increment(key, HOUR_MS, 100, 0, 'default')),
      );
      const admitted = records.filter((record) => !record.isBlocked);
      expect(admitted).toHaveLength(100);
      expect(admitted.map((record) => record.totalHits).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      const windows = await Promise.all(Array.from({ length: 50 }, () => h.storage.hitWindow(key + 'w', HOUR_MS, 10)));
      expect(windows.map((record) => record.hits).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });
  });
}
