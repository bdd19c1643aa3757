import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { redisOptions } from '../../redis-client/redis-client.module';
import { describeRateLimitStorage } from '../../../test/support/rate-limit-storage.contract';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';

// The real server the suite runs against; never a mock, since atomicity and expiry are the server's to get right.
const REDIS_URL = process.env.RATE_LIMIT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// Unique per run, so parallel runs and leftovers of a crashed one cannot meet.
const PREFIX = `rl-test:${process.pid}:${randomBytes(4).toString('hex')}:`;

/** The part of a key Redis Cluster hashes: between the first `{` and the next `}`, unless that is empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : '';
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let redis: Redis;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { ...redisOptions(), lazyConnect: true });
  redis.on('error', () => undefined);
  await redis.connect();
});

afterAll(async () => {
  if (!redis) return;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
});

describeRateLimitStorage('redis', () => ({
  storage: new RedisRateLimitStorage(redis, { keyPrefix: PREFIX, timeoutMs: 1000 }),
  ttlMs: 300,
  slackMs: 100,
  advance: (ms) => sleep(ms),
}));

describe('RedisRateLimitStorage', () => {
  it('keeps both keys of a check in one cluster slot and lets the server expire them', async () => {
    const storage = new RedisRateLimitStorage(redis, { keyPrefix: PREFIX });
    const key = `slots|${randomBytes(4).toString('hex')}`;
    await storage.increment(key, 5000, 0, 8000, 'default');
    const [hitsKey, blockKey] = storage.keysOf(key);
    expect(hitsKey).toBe(`${PREFIX}{${key}}:h`);
    expect(hashTag(hitsKey)).toBe(key);
    expect(hashTag(blockKey)).toBe(key);
    const hitsTtl = await redis.pttl(hitsKey);
    const blockTtl = await redis.pttl(blockKey);
    expect(hitsTtl).toBeGreaterThan(4000);
    expect(hitsTtl).toBeLessThanOrEqual(5000);
    expect(blockTtl).toBeGreaterThan(7000);
    expect(blockTtl).toBeLessThanOrEqual(8000);
  });

  it('keeps keys with braces in one hash tag, distinct from each other', async () => {
    const storage = new RedisRateLimitStorage(redis, { keyPrefix: PREFIX });
    const keys = ['}', '{', '%7D', '', '%', 'a}b{c'];
    const tags = keys.map((key) => {
      const [hitsKey, blockKey] = storage.keysOf(key);
      const tag = hashTag(hitsKey);
      // The tag is the whole key segment, so distinct keys hash (and count) apart.
      expect(hitsKey).toBe(`${PREFIX}{${tag}}:h`);
      expect(hashTag(blockKey)).toBe(tag);
      return tag;
    });
    expect(new Set(tags).size).toBe(keys.length);
    await storage.increment('}', 5000, 10, 0, 'default');
    expect((await storage.peek('%7D', 5000, 10)).totalHits).toBe(0);
    expect((await storage.peek('}', 5000, 10)).totalHits).toBe(1);
  });

  it('rejects a prefix that would move the hash tag', () => {
    expect(() => new RedisRateLimitStorage(redis, { keyPrefix: 'rl:{x}:' })).toThrow(/prefix/);
  });
});
