import { CapturingLogger, silent } from '../../../test/support/capturing-rate-limit-logger';
import { ManualClock } from '../../../test/support/manual-clock';
import { SystemClock } from '../common/clock/clock';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RateLimitTimeoutError } from './redis-rate-limit.storage';
import { ResilientRateLimitStorage } from './resilient-rate-limit.storage';

// The fail-open storage's breaker and its behaviour while the primary is away, without a Redis server: the
// primary here is a memory storage the test switches or fails (resilient-rate-limit.storage.spec.ts runs a real
// Redis it kills and freezes).

describe('ResilientRateLimitStorage breaker', () => {
  /** A primary whose health the test switches; stands for any storage, not for Redis. */
  class SwitchablePrimary extends MemoryRateLimitStorage {
    healthy = true;
    calls = 0;
    override increment(key: string, ttl: number, limit: number, block: number, name: string) {
      this.calls++;
      return this.healthy ? super.increment(key, ttl, limit, block, name) : Promise.reject(new Error('down'));
    }
  }

  it('opens after the threshold, sends one trial per cool-down, and closes on its success', async () => {
    let now = 0;
    const primary = new SwitchablePrimary(new SystemClock());
    const log = new CapturingLogger();
    const storage = new ResilientRateLimitStorage(primary, new MemoryRateLimitStorage(new SystemClock()), log, {
      failureThreshold: 3,
      coolDownMs: 1000,
      now: () => now,
    });
    const hit = () => storage.increment('k', 60_000, 100, 0, 'default');

    primary.healthy = false;
    for (let i = 0; i < 2; i++) await hit();
    expect(storage.state).toBe('closed');
    await hit();
    expect(storage.state).toBe('open');
    for (let i = 0; i < 10; i++) await hit();
    expect(primary.calls).toBe(3);
    expect(storage.fallbackCount).toBe(13);

    now = 1000;
    await hit(); // the trial, failing: open for another cool-down, no new log line
    expect(primary.calls).toBe(4);
    expect(storage.state).toBe('open');
    now = 1500;
    await hit();
    expect(primary.calls).toBe(4);

    primary.healthy = true;
    now = 2000;
    // Concurrent checks while the trial is out go to the fallback, not to the primary.
    await Promise.all([hit(), hit(), hit()]);
    expect(primary.calls).toBe(5);
    expect(storage.state).toBe('closed');
    await hit();
    expect(primary.calls).toBe(6);
    expect(storage.fallbackCount).toBe(17);
    expect(log.events()).toEqual(['rate_limit_breaker_open', 'rate_limit_breaker_closed']);
  });

  it('counts only consecutive failures', async () => {
    const primary = new SwitchablePrimary(new SystemClock());
    const storage = new ResilientRateLimitStorage(primary, new MemoryRateLimitStorage(new SystemClock()), silent);
    for (let round = 0; round < 5; round++) {
      primary.healthy = false;
      await storage.increment('k', 60_000, 100, 0, 'default');
      await storage.increment('k', 60_000, 100, 0, 'default');
      primary.healthy = true;
      await storage.increment('k', 60_000, 100, 0, 'default');
    }
    expect(storage.state).toBe('closed');
  });
});

describe('ResilientRateLimitStorage while Redis is away', () => {
  /** A primary that fails every call, resets included, as a Redis that is down or too slow does. */
  class FailingPrimary extends MemoryRateLimitStorage {
    error: Error = new Error('down');
    override increment(): never {
      throw this.error;
    }
    override peek(): never {
      throw this.error;
    }
    override admit(): never {
      throw this.error;
    }
    override leases(): never {
      throw this.error;
    }
    override reset(): never {
      throw this.error;
    }
    override hitWindow(): never {
      throw this.error;
    }
    override peekWindow(): never {
      throw this.error;
    }
  }

  it('clears the key without failing when Redis cannot (a login must not answer 500)', async () => {
    for (const error of [new Error('Connection is closed.'), new RateLimitTimeoutError(75)]) {
      const primary = new FailingPrimary(new SystemClock());
      const memory = new MemoryRateLimitStorage(new SystemClock());
      const storage = new ResilientRateLimitStorage(primary, memory, silent);
      primary.error = error;
      await storage.increment('k', 60_000, 10, 0, 'default');
      await expect(storage.reset('k')).resolves.toBeUndefined();
      expect((await memory.peek('k', 60_000, 10)).totalHits).toBe(0);
    }
  });

  it('gives each instance a bucket of ceil(limit / N) draining at 1/N of the rate, and says so in the record', async () => {
    let fleet = 2;
    const clock = new ManualClock('2026-11-24T12:00:00Z');
    const storage = new ResilientRateLimitStorage(
      new FailingPrimary(new SystemClock()),
      new MemoryRateLimitStorage(clock),
      silent,
      { fleetSize: () => fleet },
    );
    const answers = [];
    for (let i = 0; i < 16; i++) answers.push(await storage.increment('k', 3000, 30, 0, 'default'));
    expect(answers.map((record) => record.limit)).toEqual(Array(16).fill(15));
    expect(answers.slice(0, 15).every((record) => !record.isBlocked)).toBe(true);
    expect(answers[15].isBlocked).toBe(true);
    expect(await storage.peek('k', 3000, 30)).toMatchObject({ limit: 15, totalHits: 15 });
    // The fleet drains 10 GET/s; this instance 5/s, one every 200 ms.
    clock.advance(199);
    expect((await storage.increment('k', 3000, 30, 0, 'default')).isBlocked).toBe(true);
    clock.advance(1);
    expect((await storage.increment('k', 3000, 30, 0, 'default')).isBlocked).toBe(false);
    expect((await storage.increment('k', 3000, 30, 0, 'default')).isBlocked).toBe(true);
    // Half the capacity at half the rate: still empty 3 s after it was last full.
    clock.advance(2999);
    expect((await storage.peek('k', 3000, 30)).totalHits).toBe(1);
    clock.advance(1);
    expect((await storage.peek('k', 3000, 30)).totalHits).toBe(0);

    fleet = 3;
    expect((await storage.increment('odd', 3000, 10, 0, 'default')).limit).toBe(4);
    fleet = 0; // never below one instance, never a limit of 0
    expect((await storage.increment('one', 3000, 1, 0, 'default')).limit).toBe(1);
  });

  it('holds each instance to ceil(cap / N) leases, and its bucket to its share for costly requests too', async () => {
    const fallback = new MemoryRateLimitStorage(new SystemClock());
    const storage = new ResilientRateLimitStorage(new FailingPrimary(new SystemClock()), fallback, silent, {
      fleetSize: () => 3,
    });
    const lease = { key: 'cc:credential', cap: 20 };
    const admitted = [];
    for (let i = 0; i < 7; i++) admitted.push(await storage.admit('req:a', 60_000, 1000, 1, lease));
    expect(admitted.every((record) => record.lease !== undefined && record.cap === 7)).toBe(true);
    expect(await storage.admit('req:a', 60_000, 1000, 1, lease)).toMatchObject({ overCap: true, cap: 7, limit: 334 });
    expect(await storage.leases('cc:credential')).toBe(7);
    admitted[0].lease?.release();
    expect((await storage.admit('req:a', 60_000, 1000, 1, lease)).lease).toBeDefined();
    // Cost 100 of a share of ceil(300 / 3) = 100: one request empties the bucket.
    expect(await storage.admit('req:b', 60_000, 300, 100)).toMatchObject({ isBlocked: false, limit: 100 });
    expect(await storage.admit('req:b', 60_000, 300, 1)).toMatchObject({ isBlocked: true, limit: 100 });
  });

  it('applies the share to the login lock windows too', async () => {
    const storage = new ResilientRateLimitStorage(
      new FailingPrimary(new SystemClock()),
      new MemoryRateLimitStorage(new SystemClock()),
      silent,
      { fleetSize: () => 2 },
    );
    expect(await storage.hitWindow('login', 60_000, 10)).toMatchObject({ hits: 1, limit: 5 });
    expect(await storage.peekWindow('login', 60_000, 10)).toMatchObject({ hits: 1, limit: 5 });
  });
});
