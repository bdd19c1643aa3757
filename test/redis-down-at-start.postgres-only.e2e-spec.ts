import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { call, freshIp, metric, sleep, startFleet } from './support/fleet';
import { killChildren, logRecords, requireBuild, type RunningService } from './support/processes';
import { RedisServer } from './support/redis-server';

/** Redis is an accelerator: an instance starts and serves without it, and takes it up once it appears. */
describe('an instance started while Redis is down', () => {
  let redis: RedisServer;
  let database: ProvisionedDatabase;
  let service: RunningService;

  beforeAll(async () => {
    requireBuild();
    redis = await RedisServer.onFreePort(); // not started yet
    database = await provisionDatabase('postgres');
  });

  afterAll(async () => {
    await killChildren();
    await redis?.kill();
    await database?.drop();
  });

  it('starts, serves with per-instance limits, and subscribes and announces itself once Redis appears', async () => {
    const started = performance.now();
    [service] = await startFleet(1, { ...database.env, REDIS_URL: redis.url }, { awaitFleet: false });
    console.log(`started without Redis in ${Math.round(performance.now() - started)} ms`);
    const answer = await call(service.url, 'GET', '/v1/products', { ip: freshIp() });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-rate-limit-limit')).toBe('30');
    const warnings = logRecords(service.child.stdout).filter((record) => record.level === 'warn');
    // One line for the connection, naming the failure, and one for the transport that is away, without a
    // stack: an outage is weather, not a bug.
    expect(
      warnings.map((record) => [
        record.event === 'redis_connection_failed' ? record.reason : record.transport,
        record.msg,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['refused', expect.stringMatching(/^Redis refused the connection at 127\.0\.0\.1:\d+/)],
        ['redis', 'revocation notices from other instances are not received through this transport yet'],
      ]),
    );
    expect(warnings).toHaveLength(2);
    expect(JSON.stringify(warnings)).not.toContain('"stack"');

    await redis.start();
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
    try {
      const prefix = database.env.REDIS_KEY_PREFIX;
      const since = performance.now();
      for (;;) {
        const [, subscribers] = (await admin.pubsub('NUMSUB', `${prefix}revocations`)) as [string, number];
        const announced = await admin.zcard(`${prefix}instances`);
        if (subscribers === 1 && announced === 1) break;
        if (performance.now() - since > 10_000) throw new Error(`not taken up: ${subscribers} / ${announced}`);
        await sleep(100);
      }
      console.log(`Redis taken up ${Math.round(performance.now() - since)} ms after it started`);
      expect(await metric(service.url, 'rate_limit_storage_breaker_open')).toBe(0);
      // Counted in Redis now: the hits of one address add up there.
      const ip = freshIp();
      await call(service.url, 'GET', '/v1/products', { ip });
      const second = await call(service.url, 'GET', '/v1/products', { ip });
      expect(second.headers.get('x-rate-limit-remaining')).toBe('28');
      expect((await admin.keys(`${prefix}rl:*`)).length).toBeGreaterThan(0);
    } finally {
      admin.disconnect();
    }
  });
});
