import { withDeadline } from '../common/runtime/deadline';
import type { CircuitBreaker } from '../counters/circuit-breaker';
import type { FleetPresence } from '../counters/fleet-presence';
import {
  closeConnection,
  duplicateConnection,
  isCluster,
  type RedisConnection,
} from '../redis-client/redis-connection';
import { SEND_DEADLINE_MS, type Transport } from './transport';

class RedisUnavailableError extends Error {
  constructor() {
    super('Redis is away (circuit breaker open)');
  }
}

/**
 * How many other service instances are alive, from the fleet's heartbeat set (see FleetPresence): entries not
 * yet expired in the server's time, less this process's own. KEYS: the set. ARGV: this process's member.
 */
const OTHER_LIVE_INSTANCES_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
if mine and tonumber(mine) > now then live = live - 1 end
return live
`;

/**
 * Redis pub/sub, when REDIS_URL is set. A subscribed connection can do nothing else, so it has its own.
 * Publishing goes through the process's Redis breaker: while Redis is away nobody waits for it.
 *
 * On one server (Sentinel-followed or not) PUBLISH answers how many subscribers got the notice. A Cluster
 * forwards a PUBLISH to every node, but answers only the count of the node it reached, so there the instances
 * to wait for are counted from the fleet's heartbeats instead.
 */
export class RedisTransport implements Transport {
  readonly name = 'redis';
  private subscriber?: RedisConnection;

  constructor(
    private readonly redis: RedisConnection,
    private readonly breaker: CircuitBreaker,
    private readonly channel: string,
    private readonly instancesKey: string,
    private readonly presence: FleetPresence | null,
  ) {}

  async start(deliver: (message: string) => void, resumed: () => void): Promise<void> {
    // No command timeout here: a SUBSCRIBE issued while Redis is away waits in the queue for the connection.
    this.subscriber = duplicateConnection(this.redis, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    const subscriber = this.subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, message: string) => deliver(message));
    // After a lost connection ioredis subscribes again as it turns ready; a SUBSCRIBE of ours queued behind it
    // answers once that one is in place, and only then has nothing more been missed.
    let dropped = false;
    subscriber.on('close', () => (dropped = true));
    subscriber.on('ready', () => {
      if (!dropped) return;
      dropped = false;
      subscriber.subscribe(this.channel).then(resumed, () => undefined);
    });
    // Queued until connected and renewed by ioredis after every reconnect; a Redis that is down when the
    // service starts must not hold up the start.
    await withDeadline(this.subscriber.subscribe(this.channel), SEND_DEADLINE_MS);
  }

  async send(message: string): Promise<number> {
    if (isCluster(this.redis)) {
      await this.publish(message);
      return this.otherLiveInstances();
    }
    // PUBLISH answers how many subscribers got it, this instance's own included.
    const receivers = await this.publish(message);
    return Math.max(0, receivers - 1);
  }

  async reply(message: string): Promise<void> {
    await this.publish(message);
  }

  async stop(): Promise<void> {
    if (this.subscriber) await closeConnection(this.subscriber);
  }

  private otherLiveInstances(): Promise<number> {
    const self = this.presence?.instanceId ?? '';
    return this.breaker.run(
      async () =>
        Number(
          await withDeadline(
            this.redis.eval(OTHER_LIVE_INSTANCES_SCRIPT, 1, this.instancesKey, self),
            SEND_DEADLINE_MS,
          ),
        ),
      () => Promise.reject(new RedisUnavailableError()),
    );
  }

  private publish(message: string): Promise<number> {
    return this.breaker.run(
      () => withDeadline(this.redis.publish(this.channel, message), SEND_DEADLINE_MS),
      () => Promise.reject(new RedisUnavailableError()),
    );
  }
}
