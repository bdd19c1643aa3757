import { RedisServer } from '../../../test/support/redis-server';
import { ClusterSet, SentinelSet } from '../../../test/support/redis-topology';
import { parseRedisUrl } from '../config/redis-url';
import { RedisRateLimitStorage } from '../counters/redis-rate-limit.storage';
import { CircuitBreaker } from '../counters/circuit-breaker';
import { FleetPresence } from '../counters/fleet-presence';
import { closeConnection, duplicateConnection, openRedisConnection, type RedisConnection } from './redis-connection';

const silent = { warn: () => undefined, info: () => undefined };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return await attempt();
    } catch (error) {
      last = error;
      await sleep(50);
    }
  }
  throw new Error(`${what} within ${timeoutMs} ms: ${String(last)}`);
}

/**
 * Every Redis feature of the service over ioredis's client for each REDIS_URL form: shared buckets (keys spread
 * over every slot), the live-instance count, and pub/sub; after a master is SIGKILLed, the same again on the
 * promoted replica (whose script cache is empty: NOSCRIPT must be answered by EVAL).
 */
describe.each([
  ['one server', async () => RedisServer.start()],
  ['Sentinel', async () => SentinelSet.start()],
  ['Cluster', async () => ClusterSet.start()],
] as const)('Redis features over %s', (form, start) => {
  let topology: RedisServer | SentinelSet | ClusterSet;
  const connections: RedisConnection[] = [];
  const presences: FleetPresence[] = [];
  const prefix = `conn-test-${process.pid}:`;

  function connect(): RedisConnection {
    // The budget of this spec, stated: 5 s per command instead of the service's 500 ms. It checks exact counts
    // across topologies and a failover, and an increment that timed out has an unknown outcome, which makes an
    // exact count meaningless; with the service's 500 ms a command stalled past it on the loaded 2-core CI machine
    // ("Command timed out", one run in four). The service's own deadlines and what it does when they pass are
    // tested at their production values in the outage suites (redis-outage, redis-failover, shutdown-redis-down).
    const connection = openRedisConnection(parseRedisUrl(topology.url), undefined, { commandTimeout: 5000 });
    connection.on('error', () => undefined);
    connections.push(connection);
    return connection;
  }

  async function ready(connection: RedisConnection): Promise<void> {
    await until(
      'connection ready',
      async () => {
        if (connection.status !== 'ready') throw new Error(connection.status);
        await connection.ping();
      },
      15_000,
    );
  }

  beforeAll(async () => {
    topology = await start();
  }, 60_000);

  afterAll(async () => {
    for (const presence of presences) await presence.stop();
    for (const connection of connections) await closeConnection(connection, 0);
    if (topology instanceof RedisServer) await topology.kill();
    else await topology.stop();
  });

  async function exactBuckets(storage: RedisRateLimitStorage, round: string): Promise<void> {
    // 40 keys land in many slots, hence on every master of a cluster.
    for (let i = 0; i < 40; i++) {
      const key = `${round}:${i}`;
      for (let hit = 1; hit <= 3; hit++) {
        // A bucket of 2 draining over 60 s: the third request is refused and adds nothing.
        const record = await storage.increment(key, 60_000, 2, 0, 'default');
        expect(record.totalHits).toBe(Math.min(hit, 2));
        expect(record.isBlocked).toBe(hit > 2);
      }
    }
  }

  it('keeps exact shared buckets, counts live instances and carries messages; again after a master is lost', async () => {
    const redis = connect();
    await ready(redis);
    const storage = new RedisRateLimitStorage(redis, { keyPrefix: `${prefix}rl:`, timeoutMs: 1000 });
    await exactBuckets(storage, 'before');

    for (let i = 0; i < 2; i++) {
      const presence = new FleetPresence(connect(), new CircuitBreaker(silent), `${prefix}instances`, silent, 200);
      presences.push(presence);
    }
    for (const presence of presences) await ready((presence as unknown as { redis: RedisConnection }).redis);
    for (const presence of presences) presence.start();
    await until(
      'both instances counted',
      async () => {
        for (const presence of presences) if ((await presence.beat()) !== 2) throw new Error('not yet 2');
      },
      5000,
    );

    const subscriber = duplicateConnection(redis, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    subscriber.on('error', () => undefined);
    connections.push(subscriber);
    const received: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => received.push(message));
    await subscriber.subscribe(`${prefix}notices`);
    await redis.publish(`${prefix}notices`, 'one');
    await until('message received', async () => expect(received).toContain('one'), 2000);

    if (topology instanceof RedisServer) return;
    const { promotedAt } = await topology.killMaster();
    // The contract: shared buckets resume within 5 s of the new master answering.
    await until('buckets answer on the promoted master', () => storage.increment('after-probe', 60_000, 100, 0), 5000);
    expect(Date.now() - promotedAt).toBeLessThan(5000);
    if (topology instanceof SentinelSet) {
      // The other sentinels announce the switch later, each announcement a reconnect of a few hundred ms (the
      // service's breaker covers them); exactness is checked once they all have.
      await topology.settled();
      await sleep(300);
      await until(
        'buckets answer after the last announcement',
        () => storage.increment('after-probe', 60_000, 100, 0),
        5000,
      );
    }
    await exactBuckets(storage, 'after');
    await until(
      'message received after the failover',
      async () => {
        await redis.publish(`${prefix}notices`, 'two');
        expect(received).toContain('two');
      },
      5000,
    );
    await until(
      'both instances counted after the failover',
      async () => {
        for (const presence of presences) if ((await presence.beat()) !== 2) throw new Error('not yet 2');
      },
      5000,
    );
    expect(form).not.toBe('one server');
  }, 90_000);
});
