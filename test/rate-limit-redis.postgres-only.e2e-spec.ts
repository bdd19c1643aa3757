import { setTimeout as sleep } from 'node:timers/promises';
import type Redis from 'ioredis';
import { ResilientRateLimitStorage } from '../src/platform/counters/resilient-rate-limit.storage';
import { RATE_LIMIT_STORAGE } from '../src/platform/counters/rate-limit-storage';
import { REDIS_CLIENT } from '../src/platform/redis-client/redis-client.module';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { RateLimitProbeModule } from './support/rate-limit-probe.module';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITED_BODY = '["error_rate_limit_exceed"]';
/** How long any one request may take while Redis is away (the storage's own deadline is 75 ms). */
const OUTAGE_DEADLINE_MS = 500;

/** Waits for `work`, but no longer than `ms`; leaves no timer behind either way. */
async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

let addresses = 0;
const freshIp = () => {
  addresses++;
  return `${['192.0.2', '198.51.100', '203.0.113'][Math.floor(addresses / 250) % 3]}.${(addresses % 250) + 1}`;
};

interface Answer {
  status: number;
  body: string;
  limit: string | null;
  remaining: string | null;
  identifier: string | null;
  retryAfter: string | null;
  ms: number;
}

/** An app instance listening on a real port, so hundreds of requests can be in flight at once. */
class Instance {
  private constructor(
    readonly t: TestApp,
    readonly url: string,
  ) {}

  static async start(database: ProvisionedDatabase, redisUrl: string): Promise<Instance> {
    const t = await startTestApp({
      database,
      extraModules: [RateLimitProbeModule],
      // 127.0.0.1 (the test) is a trusted proxy: X-Forwarded-For picks the counter's client IP.
      env: { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '127.0.0.1', REDIS_URL: redisUrl },
    });
    await t.app.listen(0, '127.0.0.1');
    const address = t.app.getHttpServer().address() as { port: number };
    return new Instance(t, `http://127.0.0.1:${address.port}`);
  }

  async send(method: string, path: string, ip: string): Promise<Answer> {
    const started = performance.now();
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'x-forwarded-for': ip },
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.text();
    return {
      status: res.status,
      body,
      limit: res.headers.get('x-rate-limit-limit'),
      remaining: res.headers.get('x-rate-limit-remaining'),
      identifier: res.headers.get('x-rate-limit-identifier'),
      retryAfter: res.headers.get('retry-after'),
      ms: performance.now() - started,
    };
  }

  /**
   * This instance's breaker figures, read from its own storage: /metrics comes from one prom-client registry per
   * process, which reports the last-started of the two in-process apps (the built-process fault tests read
   * /metrics itself).
   */
  async metrics(): Promise<{ fallbacks: number; breakerOpen: number }> {
    const storage = this.t.app.get<ResilientRateLimitStorage>(RATE_LIMIT_STORAGE);
    return { fallbacks: storage.fallbackCount, breakerOpen: storage.state === 'closed' ? 0 : 1 };
  }

  /** The shared connection is up, so the first checks are not answered from memory for want of it. */
  async redisReady(): Promise<void> {
    const redis = this.t.app.get<Redis>(REDIS_CLIENT);
    const deadline = Date.now() + 5000;
    while (redis.status !== 'ready') {
      if (Date.now() > deadline) throw new Error(`Redis client not ready: ${redis.status}`);
      await sleep(20);
    }
  }

  /** Waits until this instance's heartbeat has counted `instances` live instances. */
  async fleetOf(instances: number): Promise<void> {
    const deadline = Date.now() + 5000;
    const seen = () =>
      this.t.logs.records.filter((record) => record.event === 'fleet_size').at(-1)?.instances === instances;
    while (!seen()) {
      if (Date.now() > deadline) throw new Error(`the instance did not see ${instances} live instances within 5 s`);
      await sleep(50);
    }
  }

  async close(): Promise<void> {
    await atMost(this.t.app.close(), 5000);
  }
}

function expectLimited(answer: Answer) {
  expect(answer).toMatchObject({ status: 429, body: LIMITED_BODY, limit: expect.any(String), remaining: '0' });
  expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
}

describe('request rate limit shared through Redis by two instances', () => {
  let database: ProvisionedDatabase;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    database = await provisionDatabase();
    a = await Instance.start(database, REDIS_URL);
    b = await Instance.start(database, REDIS_URL);
    await Promise.all([a.redisReady(), b.redisReady()]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('uses the Redis storage behind the circuit breaker', () => {
    for (const instance of [a, b]) {
      const storage = instance.t.app.get(RATE_LIMIT_STORAGE);
      expect(storage).toBeInstanceOf(ResilientRateLimitStorage);
      expect((storage as ResilientRateLimitStorage).state).toBe('closed');
    }
  });

  it('200 concurrent requests on one bucket across both: at most capacity + floor(elapsed × rate) pass (20 times)', async () => {
    const limit = 30;
    for (let round = 0; round < 20; round++) {
      const ip = freshIp();
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).send('GET', '/v1/probe-products', ip)),
      );
      // The bucket drains one GET every 100 ms while the burst is under way.
      const bound = limit + Math.floor((performance.now() - started) / 100);
      const passed = answers.filter((answer) => answer.status === 200);
      const limited = answers.filter((answer) => answer.status === 429);
      // A check answered from memory (a missed deadline) would make the counts per instance, not shared.
      const fallbacks = (await a.metrics()).fallbacks + (await b.metrics()).fallbacks;
      expect({ round, fallbacks, within: passed.length >= limit && passed.length <= bound }).toEqual({
        round,
        fallbacks: 0,
        within: true,
      });
      expect(passed.length + limited.length).toBe(200);
      for (const answer of answers) {
        expect(answer).toMatchObject({ limit: String(limit), identifier: `${ip}|GET|products|-` });
      }
      for (const answer of passed) expect(Number(answer.remaining)).toBeLessThan(limit);
      for (const answer of limited) expectLimited(answer);
    }
    for (const instance of [a, b]) expect(await instance.metrics()).toEqual({ fallbacks: 0, breakerOpen: 0 });
  });

  it('the shared bucket drains on the Redis clock: one DELETE a second, empty 3 s after it was last full', async () => {
    const ip = freshIp();
    expect(await a.send('DELETE', '/v1/probe-products/1', ip)).toMatchObject({
      status: 204,
      limit: '3',
      remaining: '2',
    });
    expect(await b.send('DELETE', '/v1/probe-products/1', ip)).toMatchObject({ status: 204, remaining: '1' });
    expect(await a.send('DELETE', '/v1/probe-products/1', ip)).toMatchObject({ status: 204, remaining: '0' });
    const fullAt = Date.now();
    const limited = await b.send('DELETE', '/v1/probe-products/1', ip);
    expectLimited(limited);
    expect(limited.retryAfter).toBe('1');

    // One second later exactly one more fits, through either instance.
    await sleep(Math.max(0, fullAt + 1000 + 50 - Date.now()));
    expect(await b.send('DELETE', '/v1/probe-products/1', ip)).toMatchObject({ status: 204, remaining: '0' });
    expectLimited(await a.send('DELETE', '/v1/probe-products/1', ip));

    await sleep(3000 + 50);
    expect(await b.send('DELETE', '/v1/probe-products/1', ip)).toMatchObject({
      status: 204,
      limit: '3',
      remaining: '2',
    });
    expect(await a.send('DELETE', '/v1/probe-products/1', ip)).toMatchObject({ status: 204, remaining: '1' });
  });
});

describe('Redis stops mid-run', () => {
  let redis: RedisServer;
  let database: ProvisionedDatabase;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    redis = await RedisServer.onFreePort();
    await redis.start();
    database = await provisionDatabase();
    a = await Instance.start(database, redis.url);
    b = await Instance.start(database, redis.url);
    await Promise.all([a.redisReady(), b.redisReady()]);
  });
  afterAll(async () => {
    try {
      await a?.close();
      await b?.close();
    } finally {
      await redis?.kill();
      await database?.drop();
    }
  });

  it('fails open per instance within a deadline, counts the fallbacks, and shares counters again after a restart', async () => {
    // Shared while Redis runs: hits through A and B add up.
    const before = freshIp();
    // DELETE: a bucket of 3 draining one a second, so a slow machine cannot drain it between the requests.
    await a.send('DELETE', '/v1/probe-products/1', before);
    expect(await b.send('DELETE', '/v1/probe-products/1', before)).toMatchObject({ status: 204, remaining: '1' });
    const [fallbacksA, fallbacksB] = [(await a.metrics()).fallbacks, (await b.metrics()).fallbacks];
    // Both have seen each other's heartbeat, so each knows the fleet is two instances.
    for (const instance of [a, b]) await instance.fleetOf(2);

    await redis.kill();

    // Every request is answered, quickly; each instance now limits on its own: a bucket of ceil(30 / 2) = 15
    // draining at half the rate (one GET every 200 ms), and for DELETE ceil(3 / 2) = 2, one every 2 s.
    const ip = freshIp();
    const answers: Answer[] = [];
    const started = performance.now();
    for (let i = 0; i < 20; i++) answers.push(await a.send('GET', '/v1/probe-products', ip));
    const bound = 15 + Math.floor((performance.now() - started) / 200);
    for (let i = 0; i < 5; i++) answers.push(await b.send('GET', '/v1/probe-products', ip));
    for (const answer of answers) {
      expect([200, 429]).toContain(answer.status);
      expect(answer.ms).toBeLessThan(OUTAGE_DEADLINE_MS);
      expect(answer.identifier).toBe(`${ip}|GET|products|-`);
      expect(answer.limit).toBe('15');
    }
    const throughA = answers.slice(0, 20).filter((answer) => answer.status === 200).length;
    expect(throughA).toBeGreaterThanOrEqual(15);
    expect(throughA).toBeLessThanOrEqual(bound);
    expect(answers.slice(0, 15).every((answer) => answer.status === 200)).toBe(true);
    expectLimited(answers.slice(0, 20).find((answer) => answer.status === 429)!);
    expect(answers[20]).toMatchObject({ status: 200, remaining: '14' });
    const deletes = [];
    for (let i = 0; i < 3; i++) deletes.push(await a.send('DELETE', '/v1/probe-products/1', ip));
    expect(deletes.map((answer) => [answer.status, answer.limit, answer.remaining])).toEqual([
      [204, '2', '1'],
      [204, '2', '0'],
      [429, '2', '0'],
    ]);
    expect(deletes[2].retryAfter).toBe('2');

    const outageA = await a.metrics();
    const outageB = await b.metrics();
    expect(outageA.fallbacks).toBeGreaterThanOrEqual(fallbacksA + 16);
    expect(outageB.fallbacks).toBeGreaterThanOrEqual(fallbacksB + 5);
    expect(outageA.breakerOpen).toBe(1);
    expect(outageB.breakerOpen).toBe(1);
    expect(a.t.logs.text).toContain('rate_limit_breaker_open');

    await redis.start();

    // Each breaker closes on a trial check once its cool-down is over and the client has reconnected.
    const deadline = Date.now() + 10_000;
    const closed = new Set<Instance>();
    while (closed.size < 2) {
      if (Date.now() > deadline) throw new Error('the breakers did not close within 10 s of Redis coming back');
      for (const instance of [a, b]) {
        if (closed.has(instance)) continue;
        const probe = await instance.send('GET', '/v1/probe-products', freshIp());
        expect(probe.ms).toBeLessThan(OUTAGE_DEADLINE_MS);
        if ((await instance.metrics()).breakerOpen === 0) closed.add(instance);
      }
      if (closed.size < 2) await sleep(100);
    }
    expect(a.t.logs.text).toContain('rate_limit_breaker_closed');

    // Shared again: DELETEs through A, B, A fill one bucket of 3; the next, through B, is refused.
    const after = freshIp();
    const [sharedA, sharedB] = [(await a.metrics()).fallbacks, (await b.metrics()).fallbacks];
    const remaining: string[] = [];
    for (const instance of [a, b, a]) {
      const answer = await instance.send('DELETE', '/v1/probe-products/1', after);
      expect(answer).toMatchObject({ status: 204, limit: '3' });
      remaining.push(answer.remaining!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expectLimited(await b.send('DELETE', '/v1/probe-products/1', after));
    expect(await a.metrics()).toEqual({ fallbacks: sharedA, breakerOpen: 0 });
    expect(await b.metrics()).toEqual({ fallbacks: sharedB, breakerOpen: 0 });
  });
});
