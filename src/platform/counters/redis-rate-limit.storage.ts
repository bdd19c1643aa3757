import type { RedisConnection } from '../redis-client/redis-connection';
import { DeadlineError, withDeadline } from '../common/runtime/deadline';
import { RedisAdmission } from './redis-admission';
import { runScript, script, type Script } from './redis-scripts';
import { bucketRecord, decide, EPSILON_MS } from './leaky-bucket';
import {
  type AdmitRecord,
  type LeaseAsk,
  RateLimitStorage,
  ThrottlerStorageRecord,
  WindowRecord,
  wholeSeconds,
} from './rate-limit-storage';

export interface RedisRateLimitStorageOptions {
  /** Put before every key. */
  keyPrefix?: string;
  /** How long a check may take before it counts as failed. */
  timeoutMs?: number;
  /** How long a concurrency lease lives unless returned (LEASE_TTL_MS by default). */
  leaseMs?: number;
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
 * One leaky-bucket decision, atomic and in one round trip, on the server's clock (`TIME`), so that the
 * instances' clocks never enter into it: the same GCRA as leaky-bucket.ts. The bucket is one key holding its
 * TAT (the instant it is empty again, in ms) and expiring then; one key per decision, so the script is safe on
 * Redis Cluster (one hash slot) without hash tags. `redis.replicate_commands()` lets a script write after
 * `TIME` on Redis < 5 (later versions replicate effects anyway and keep the call as a no-op).
 *
 * KEYS: the bucket. ARGV: period ms (a full bucket drains in it), capacity, "1" to decide a request or "0" to
 * peek. Returns { admitted (1/0), backlog in ms after the decision (a string: Lua numbers would be truncated) }.
 */
const BUCKET_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local period = tonumber(ARGV[1])
local interval = period / tonumber(ARGV[2])
local level = tonumber(redis.call('GET', KEYS[1]) or '0') - now
-- More than a full bucket: the server's clock was set back (see backlog() in leaky-bucket.ts).
if level < 0 or level > period + ${EPSILON_MS} then level = 0 end
if ARGV[3] == '1' then
  local after = level + interval
  if after <= period + ${EPSILON_MS} then
    redis.call('SET', KEYS[1], string.format('%.3f', now + after), 'PX', math.ceil(after))
    return { 1, string.format('%.3f', after) }
  end
end
return { 0, string.format('%.3f', level) }
`;

/**
 * One fixed-window count (the failed-login lock): count (or only read) the hit, starting the window on the
 * first. The window's lifetime is the key's PTTL, the server's own.
 * KEYS: the count. ARGV: window ms, "1" to count or "0" to peek. Returns { hits, PTTL (< 0: none) }.
 */
const WINDOW_SCRIPT = `
if ARGV[2] == '1' then
  local hits = redis.call('INCR', KEYS[1])
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    ttl = tonumber(ARGV[1])
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
  return { hits, ttl }
end
return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]) }
`;

const BUCKET = script(BUCKET_SCRIPT);
const WINDOW = script(WINDOW_SCRIPT);
/**
 * Buckets and windows shared by every instance, in Redis: one key per counter, `{prefix}{key}`.
 *
 * Nothing here retries or queues: the client must be built with `enableOfflineQueue: false` (see
 * `redisOptions()`), otherwise hits issued while Redis is away would be replayed, and counted, on reconnect.
 */
export class RedisRateLimitStorage implements RateLimitStorage {
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  private readonly admission: RedisAdmission;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisRateLimitStorageOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.admission = new RedisAdmission(redis, (work) => this.withDeadline(work), options.leaseMs);
  }

  // increment, peek and check are plain promise chains rather than async functions: each async layer would add
  // a promise and a turn of the microtask queue to every rate-limited request.
  increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration?: number,
    _throttlerName?: string,
  ): Promise<ThrottlerStorageRecord> {
    return this.bucket(key, ttl, limit, '1');
  }

  peek(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.bucket(key, ttlMs, limit, '0');
  }

  admit(key: string, ttl: number, limit: number, cost: number, lease?: LeaseAsk): Promise<AdmitRecord> {
    return this.admission.admit(
      this.keyOf(key),
      ttl,
      limit,
      cost,
      lease && { key: this.keyOf(lease.key), cap: lease.cap },
    );
  }

  leases(key: string): Promise<number> {
    return this.admission.leases(this.keyOf(key));
  }

  hitWindow(key: string, windowMs: number, _limit: number): Promise<WindowRecord> {
    return this.window(key, windowMs, '1');
  }

  peekWindow(key: string, windowMs: number, _limit: number): Promise<WindowRecord> {
    return this.window(key, windowMs, '0');
  }

  async reset(key: string): Promise<void> {
    await this.withDeadline(this.redis.del(this.keyOf(key)));
  }

  /** The Redis key of a counter. */
  keyOf(key: string): string {
    return this.keyPrefix + key;
  }

  private bucket(key: string, ttl: number, limit: number, count: '0' | '1'): Promise<ThrottlerStorageRecord> {
    const period = Math.max(1, Math.ceil(ttl));
    const capacity = Math.max(1, Math.floor(limit));
    return this.withDeadline(this.run(BUCKET, [this.keyOf(key)], [period, capacity, count])).then((reply) => {
      const [admitted, levelMs] = reply as [number, string];
      const level = Number(levelMs);
      // A peek says whether a request now would fit, as MemoryRateLimitStorage.peek does.
      const fits = count === '1' ? admitted === 1 : decide(level, period, capacity).admitted;
      return bucketRecord(fits, level, period, capacity);
    });
  }

  private window(key: string, windowMs: number, count: '0' | '1'): Promise<WindowRecord> {
    const args = [Math.max(1, Math.ceil(windowMs)), count];
    return this.withDeadline(this.run(WINDOW, [this.keyOf(key)], args)).then((reply) => {
      const [hits, pttl] = reply as [number, number];
      return pttl > 0 ? { hits, secondsLeft: wholeSeconds(pttl) } : { hits: 0, secondsLeft: 0 };
    });
  }

  private run(script: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
    return runScript(this.redis, script, keys, args);
  }

  private withDeadline<T>(work: Promise<T>): Promise<T> {
    // A missed deadline is judged after the I/O phase (see withDeadline), so our own lag under a burst does not
    // count as Redis being slow and open the breaker exactly when a burst arrives.
    return withDeadline(work, this.timeoutMs, () => new RateLimitTimeoutError(this.timeoutMs));
  }
}
