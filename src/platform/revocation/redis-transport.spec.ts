import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { eventually } from '../../../test/support/eventually';
import { CircuitBreaker } from '../counters/circuit-breaker';
import { redisOptions } from '../redis-client/redis-client.module';
import { RedisTransport } from './redis-transport';

const REDIS_URL = process.env.RATE_LIMIT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Redis keeps no message for a subscriber that is not connected: a notice published while the subscribing
 * connection is away never arrives. The transport says so once it is subscribed again (`resumed`), and the bus
 * then has every cache start over (credential.service.spec).
 */
describe('Redis revocation transport when its subscribing connection is lost', () => {
  const name = `resync-test-${randomBytes(4).toString('hex')}`;
  const channel = `${name}:revocations`;
  let redis: Redis;
  let admin: Redis;
  let transport: RedisTransport;

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { ...redisOptions(), connectionName: name });
    admin = new Redis(REDIS_URL, redisOptions());
  });

  afterAll(async () => {
    await transport?.stop();
    redis?.disconnect();
    admin?.disconnect();
  });

  it('says notices may have been missed only once subscribed again, and hears what is published from then on', async () => {
    const breaker = new CircuitBreaker({ warn: () => undefined, info: () => undefined } as never);
    transport = new RedisTransport(redis, breaker, channel, `${name}:instances`, null);
    const heard: string[] = [];
    let resumed = 0;
    await transport.start(
      (message) => heard.push(message),
      () => resumed++,
    );
    await admin.publish(channel, 'before');
    expect(await eventually(() => heard.includes('before'))).toBe(true);
    expect(resumed).toBe(0);

    // This test's subscribing connection only: named after the test, in subscriber mode.
    const clients = String(await admin.client('LIST')).split('\n');
    const subscriber = clients.find((line) => line.includes(` name=${name} `) && / sub=1 /.test(line));
    const id = /(?:^|\s)id=(\d+)/.exec(subscriber ?? '')?.[1];
    expect(id).toBeDefined();
    await admin.client('KILL', 'ID', id!);
    await admin.publish(channel, 'while away');

    expect(await eventually(() => resumed > 0)).toBe(true);
    expect(resumed).toBe(1);
    expect(heard).not.toContain('while away');
    await admin.publish(channel, 'after');
    expect(await eventually(() => heard.includes('after'))).toBe(true);
    expect(resumed).toBe(1);
  });
});
