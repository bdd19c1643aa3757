import { performance } from 'node:perf_hooks';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { libfaketime } from './support/faketime';
import { call, freshIp, sleep, startFleet } from './support/fleet';
import { killChildren, requireBuild, type RunningService } from './support/processes';
import { RedisServer } from './support/redis-server';

/** The GET bucket of the source's table: 30 at once, one more every 100 ms. */
const GET_CAPACITY = 30;
const GET_INTERVAL_MS = 100;

/**
 * docs/contract.md, "Rate limiting": buckets shared between instances are computed on the Redis server's clock, so
 * instances whose clocks differ by seconds never change a decision. Two built service processes share one
 * Redis; instance B runs with its clock 2 s ahead (libfaketime, FAKETIME=+2s).
 */
describe('two instances sharing Redis, one clock 2 s ahead', () => {
  let redis: RedisServer;
  let database: ProvisionedDatabase;
  let a: RunningService;
  let b: RunningService;

  beforeAll(async () => {
    requireBuild();
    const preload = libfaketime();
    redis = await RedisServer.onFreePort();
    await redis.start();
    database = await provisionDatabase('postgres');
    [a, b] = await startFleet(
      2,
      { ...database.env, REDIS_URL: redis.url },
      { perInstance: (index): Record<string, string> => (index === 1 ? { LD_PRELOAD: preload, FAKETIME: '+2s' } : {}) },
    );
  }, 60_000);

  afterAll(async () => {
    await killChildren();
    await redis?.kill();
    await database?.drop();
  });

  it("runs B's clock 2 s ahead of A's", async () => {
    const seconds = async (url: string) => Date.parse((await call(url, 'GET', '/health/live')).headers.get('date')!);
    const [onA, onB] = await Promise.all([seconds(a.url), seconds(b.url)]);
    // Date headers have whole seconds: 2 s ahead reads as 1 to 3 s apart.
    expect((onB - onA) / 1000).toBeGreaterThanOrEqual(1);
    expect((onB - onA) / 1000).toBeLessThanOrEqual(3);
  });

  it('a bucket filled through A is still full through B, which thinks 2 s more have passed', async () => {
    const ip = freshIp();
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const answer = await call(a.url, 'DELETE', '/v1/products/1', { ip });
      expect(answer.status).toBe(401); // counted, then refused for want of a credential
      remaining.push(answer.headers.get('x-rate-limit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    // On B's clock the bucket filled 2 s ago and would have drained two DELETEs; on Redis's, it is full.
    const throughB = await call(b.url, 'DELETE', '/v1/products/1', { ip });
    expect(throughB.status).toBe(429);
    expect(throughB.headers.get('retry-after')).toBe('1');
  });

  it('requests alternating between them are admitted at most capacity + floor(elapsed × rate)', async () => {
    const ip = freshIp();
    let admitted = 0;
    const started = performance.now();
    // 40 GET/s for about 3 s, every other one through the instance 2 s ahead.
    for (let i = 0; i < 120; i++) {
      const answer = await call(i % 2 === 0 ? a.url : b.url, 'GET', '/v1/products', { ip });
      expect([401, 429]).toContain(answer.status);
      if (answer.status === 401) admitted++;
      await sleep(25);
    }
    const elapsed = performance.now() - started;
    const bound = GET_CAPACITY + Math.floor(elapsed / GET_INTERVAL_MS);
    console.log(`clock skew: ${admitted} admitted in ${Math.round(elapsed)} ms, bound ${bound}`);
    expect(admitted).toBeLessThanOrEqual(bound);
    // And the bucket does drain: nearly every 100 ms slot of the run was used.
    expect(admitted).toBeGreaterThanOrEqual(bound - 5);
  });
});
