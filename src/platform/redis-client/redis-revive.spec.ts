import { setTimeout as sleep } from 'node:timers/promises';
import { SentinelSet } from '../../../test/support/redis-topology';
import { parseRedisUrl } from '../config/redis-url';
import { closeConnection, duplicateConnection, openRedisConnection, type RedisConnection } from './redis-connection';

async function readyWithin(connection: RedisConnection, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // A subscribed connection answers PING with ['pong', ''].
    const answer = connection.status === 'ready' ? await connection.ping().catch(() => '') : '';
    if (String(answer).toLowerCase().startsWith('pong')) return;
    await sleep(25);
  }
  throw new Error(`not ready within ${timeoutMs} ms: ${connection.status}`);
}

/**
 * ioredis can end a Sentinel-followed connection on its own in a failover (see reviveUnlessClosed). Whatever
 * ended it, a service connection stays ended only when closeConnection closed it. Here the end comes from
 * disconnect(), which reaches the same `end` status as the library's race without timing luck.
 */
describe('a Sentinel-followed connection that ends without closeConnection', () => {
  let sentinels: SentinelSet;
  const opened: RedisConnection[] = [];

  function open(): RedisConnection {
    const connection = openRedisConnection(parseRedisUrl(sentinels.url));
    connection.on('error', () => undefined);
    opened.push(connection);
    return connection;
  }

  beforeAll(async () => {
    sentinels = await SentinelSet.start();
  }, 60_000);

  afterAll(async () => {
    for (const connection of opened) await closeConnection(connection, 0);
    await sentinels.stop();
  });

  it('is opened again and answers; its subscriber resubscribes', async () => {
    const redis = open();
    await readyWithin(redis, 15_000);
    const subscriber = duplicateConnection(redis, { enableOfflineQueue: true, maxRetriesPerRequest: null });
    subscriber.on('error', () => undefined);
    opened.push(subscriber);
    const received: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => received.push(message));
    await subscriber.subscribe('revive-test');

    redis.disconnect();
    subscriber.disconnect();
    await sleep(20);
    expect(redis.status).toBe('end');

    await readyWithin(redis, 5000);
    await readyWithin(subscriber, 5000);
    const deadline = Date.now() + 5000;
    while (!received.includes('after') && Date.now() < deadline) {
      await redis.publish('revive-test', 'after');
      await sleep(50);
    }
    expect(received).toContain('after');
  }, 40_000);

  it('stays ended once closeConnection has closed it', async () => {
    const redis = open();
    await readyWithin(redis, 15_000);
    await closeConnection(redis);
    await sleep(500);
    expect(redis.status).toBe('end');
  }, 30_000);
});
