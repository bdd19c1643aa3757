import { randomUUID } from 'node:crypto';
import type { RedisConnection } from '../redis-client/redis-connection';
import type { BreakerLogger, CircuitBreaker } from './circuit-breaker';
import { withDeadline } from '../common/runtime/deadline';

export const HEARTBEAT_INTERVAL_MS = 1000;
/** An instance not heard from for this long is no longer counted (it crashed, or lost Redis). */
export const HEARTBEAT_TTL_MS = 3500;
const HEARTBEAT_DEADLINE_MS = 500;

/**
 * Announces this instance and counts the live ones, in one round trip. A sorted set scored by expiry in the
 * server's own time (TIME), so the instances' clocks never enter into it and no key scan is needed.
 * KEYS: the set. ARGV: instance id, ttl ms.
 */
const HEARTBEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return redis.call('ZCARD', KEYS[1])
`;

/**
 * How many service instances share the fleet's limits (docs/contract.md: while Redis is down each instance limits at
 * `ceil(limit / N)`, N being the number of live instances it last saw). Each serving instance announces itself
 * every second through the Redis breaker; when Redis goes away the last count is kept, which is the point:
 * it is exactly when the instances can no longer see each other that they need to know how many they are.
 */
export class FleetPresence {
  readonly instanceId = randomUUID();
  private lastSeen = 1;
  /** Whether the previous heartbeat got an answer from Redis. */
  private heardLastBeat = false;
  private timer?: NodeJS.Timeout;
  private running = false;
  private readonly onReady = () => void this.beat();

  constructor(
    private readonly redis: RedisConnection,
    private readonly breaker: CircuitBreaker,
    private readonly key: string,
    private readonly logger: BreakerLogger,
    private readonly intervalMs = HEARTBEAT_INTERVAL_MS,
  ) {}

  /** Live instances as last seen, this one included; 1 until the first heartbeat has answered. */
  get size(): number {
    return this.lastSeen;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Announce as soon as the connection is (again) up, rather than up to a second later.
    this.redis.on('ready', this.onReady);
    if (this.redis.status === 'ready') void this.beat();
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops announcing and leaves the set, so the others count one fewer at their next heartbeat. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.timer);
    this.redis.off('ready', this.onReady);
    if (this.redis.status !== 'ready') return;
    await withDeadline(this.redis.zrem(this.key, this.instanceId), HEARTBEAT_DEADLINE_MS).catch(() => undefined);
  }

  async beat(): Promise<number> {
    // Not while the client is (re)connecting: the call would fail at once and count against a Redis that is
    // merely coming up.
    if (!this.running) return this.lastSeen;
    if (this.redis.status !== 'ready') {
      this.heardLastBeat = false;
      return this.lastSeen;
    }
    const seen = await this.breaker.run<number | null>(
      async () =>
        Number(
          await withDeadline(
            this.redis.eval(HEARTBEAT_SCRIPT, 1, this.key, this.instanceId, HEARTBEAT_TTL_MS),
            HEARTBEAT_DEADLINE_MS,
          ),
        ),
      () => null,
    );
    if (seen === null || !Number.isInteger(seen) || seen < 1) {
      this.heardLastBeat = false;
      return this.lastSeen;
    }
    // The first answer after Redis was away may only raise the count: the others were cut off by the same
    // outage, their entries may have expired, and each re-announces within one interval. Lowering the count
    // then would let this instance admit the whole limit if Redis went away again in that second.
    const lowered = seen < this.lastSeen;
    const afterOutage = !this.heardLastBeat;
    this.heardLastBeat = true;
    if (seen === this.lastSeen || (lowered && afterOutage)) return this.lastSeen;
    this.logger.info({ event: 'fleet_size', instances: seen, previous: this.lastSeen }, 'live instances changed');
    this.lastSeen = seen;
    return this.lastSeen;
  }
}
