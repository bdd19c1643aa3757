import { createHash } from 'node:crypto';
import type { RedisConnection } from '../../redis-client/redis-connection';
import { DeadlineError, withDeadline } from '../../redis-client/circuit-breaker';
import { RateLimitStorage, ThrottlerStorageRecord, toRecord } from './rate-limit-storage';

export interface RedisRateLimitStorageOptions {
  /** Put before every key; must not contain `{` or `}`, which would move the cluster hash tag. */
  keyPrefix?: string;
  /** How long a check may take before it counts as failed. */
  timeoutMs?: number;
}

export const DEFAULT_REDIS_KEY_PREFIX = 'rl:';
export const DEFAULT_REDIS_TIMEOUT_MS = 75;

/** A check that did not answer in time; the command may still run on the server later. */
export class RateLimitTimeoutError extends DeadlineError {
  constructor(timeoutMs: number) {
    super(timeoutMs, 'rate-limit check');
    this.name = 'RateLimitTimeoutError';
  }
}

/**
 * One round trip, atomic: count (or only read) the hit, start the window on the first hit, start the block on
 * the hit that crosses the limit, and report the remaining lifetimes. Lifetimes are the server's PTTLs, so the
 * instances' clocks never enter into it.
 *
 * KEYS: hits, block. ARGV: ttl ms, limit, block ms, "1" to count a hit or "0" to peek.
 * Returns { hits, window PTTL, block PTTL } with PTTL < 0 meaning "none".
 */
const CHECK_SCRIPT = `
local hits
local ttl
if ARGV[4] == '1' then
  hits = redis.call('INCR', KEYS[1])
  ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    ttl = tonumber(ARGV[1])
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
  local limit = tonumber(ARGV[2])
  local block = tonumber(ARGV[3])
  if block > 0 and hits > limit and hits - 1 <= limit then
    redis.call('SET', KEYS[2], '1', 'PX', block)
  end
else
  hits = tonumber(redis.call('GET', KEYS[1]) or '0')
  ttl = redis.call('PTTL', KEYS[1])
end
return { hits, ttl, redis.call('PTTL', KEYS[2]) }
`;
const CHECK_SCRIPT_SHA = createHash('sha1').update(CHECK_SCRIPT).digest('hex');

/**
 * Counters shared by every instance, in Redis.
 *
 * Key layout: `{prefix}{<key>}:h` (hit count, expires with the window) and `{prefix}{<key>}:b` (present while
 * blocked). The braces are a Redis Cluster hash tag, so both keys of a check live in one slot and the script
 * may touch them together.
 *
 * Nothing here retries or queues: the client must be built with `enableOfflineQueue: false` (see
 * `redisOptions()`), otherwise hits issued while Redis is away would be replayed, and counted, on reconnect.
 */
export class RedisRateLimitStorage implements RateLimitStorage {
  readonly keyPrefix: string;
  readonly timeoutMs: number;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisRateLimitStorageOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    if (/[{}]/.test(this.keyPrefix)) throw new Error('rate-limit key prefix must not contain "{" or "}"');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  }

  // increment, peek and check are plain promise chains rather than async functions: each async layer would add
  // a promise and a turn of the microtask queue to every rate-limited request.
  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName?: string,
  ): Promise<ThrottlerStorageRecord> {
    return this.check(key, Math.max(1, Math.ceil(ttl)), limit, Math.max(0, Math.ceil(blockDuration)), '1');
  }

  peek(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.check(key, Math.max(1, Math.ceil(ttlMs)), limit, 0, '0');
  }

  async reset(key: string): Promise<void> {
    const [hits, block] = this.keysOf(key);
    await this.withDeadline(this.redis.del(hits, block));
  }

  /** The Redis keys of a counter: hit count and block marker, sharing one hash tag. */
  keysOf(key: string): [string, string] {
    const tag = `${this.keyPrefix}{${hashTagSafe(key)}}`;
    return [`${tag}:h`, `${tag}:b`];
  }

  private check(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    count: '0' | '1',
  ): Promise<ThrottlerStorageRecord> {
    const [hitsKey, blockKey] = this.keysOf(key);
    const args = [hitsKey, blockKey, ttl, limit, blockDuration, count];
    return this.withDeadline(this.evalCheck(args)).then((reply) => {
      const [hits, windowPttl, blockPttl] = reply as [number, number, number];
      return toRecord(hits, windowPttl > 0 ? windowPttl : 0, blockPttl > 0 ? blockPttl : 0, limit);
    });
  }

  private evalCheck(args: (string | number)[]): Promise<unknown> {
    return this.redis.evalsha(CHECK_SCRIPT_SHA, 2, ...args).catch((error: unknown) => {
      // After a restart or SCRIPT FLUSH the server has forgotten the script; EVAL runs and caches it again.
      // Safe to resend: NOSCRIPT means the first attempt ran nothing.
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return this.redis.eval(CHECK_SCRIPT, 2, ...args);
      }
      throw error;
    });
  }

  private withDeadline<T>(work: Promise<T>): Promise<T> {
    // A missed deadline is judged after the I/O phase (see withDeadline), so our own lag under a burst does not
    // count as Redis being slow and open the breaker exactly when a burst arrives.
    return withDeadline(work, this.timeoutMs, () => new RateLimitTimeoutError(this.timeoutMs));
  }
}

/**
 * The key as it may stand between the hash-tag braces. Redis takes the tag up to the first `}`, and an empty
 * tag means "hash the whole key", which would split the two keys of a check across slots; so `{`, `}` and the
 * escape character itself are percent-encoded, and the empty key gets a tag no encoded key can produce.
 */
function hashTagSafe(key: string): string {
  if (key === '') return '%';
  if (!/[{}%]/.test(key)) return key;
  return key.replace(/[{}%]/g, (char) => (char === '{' ? '%7B' : char === '}' ? '%7D' : '%25'));
}
