import { readFileSync } from 'node:fs';
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../config/redis-url';

export { parseRedisUrl } from '../config/redis-url';

/** Every Redis the service can talk to: one server (possibly behind Sentinel) or a Cluster. */
export type RedisConnection = Redis | Cluster;

/**
 * Options shared by every Redis connection of the service. No offline queue: a command issued while Redis is
 * away fails at once instead of being replayed (and counted twice) on reconnect.
 */
export function redisOptions(): RedisOptions {
  return {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    // After disconnect(), ioredis waits this long for the socket to close before destroying it, on a timer that
    // keeps the process alive; a socket that never connected has closed already, and the timer ran out unheeded
    // (2 s by default), holding up the exit after SIGTERM while Redis was down.
    disconnectTimeout: 200,
    // No auto-pipelining: ioredis keeps one auto-pipeline in flight per connection, so under a burst every
    // check queues behind the previous batch's round trip; in the two-instance test that pushed checks past
    // the storage's 75 ms deadline, opening the breaker and splitting the shared limit per instance. On this
    // machine it saved no CPU either: the Pipeline bookkeeping costs what the fewer syscalls save.
  };
}

/**
 * Opens ioredis's own client for the target: a plain client, one that follows the master Sentinel names, or
 * a Cluster client (which follows slot moves and replica promotions itself).
 */
export function openRedisConnection(
  target: RedisTarget,
  tlsCaFile?: string,
  overrides: Partial<RedisOptions> = {},
): RedisConnection {
  const tls = target.tls ? (tlsCaFile ? { ca: readFileSync(tlsCaFile) } : {}) : undefined;
  const options = { ...redisOptions(), ...overrides };
  if (target.mode === 'server')
    return reviveUnlessClosed(new Redis(target.url, { ...options, ...(tls ? { tls } : {}) }));
  if (target.mode === 'sentinel') {
    return reviveUnlessClosed(
      new Redis({
        ...options,
        sentinels: target.nodes,
        name: target.masterName,
        username: target.username,
        password: target.password,
        tls,
        enableTLSForSentinelMode: target.tls,
        sentinelTLS: tls,
        // Sentinels tell every client the moment they promote a replica, instead of the client finding out
        // when its next command fails.
        failoverDetector: true,
        // A failover is what Sentinel is for: while the old master is gone, ask again soon (each try costs one
        // refused connect), so the promoted replica is used within a second of being named, not after a backoff
        // grown during the election.
        retryStrategy: (attempt) => Math.min(attempt * 100, 500),
        sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 500),
      }),
    );
  }
  const { retryStrategy, enableOfflineQueue, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    enableOfflineQueue,
    clusterRetryStrategy: (attempt) => retryStrategy?.(attempt) ?? 1000,
    // Ask the cluster for its slots again soon after a node is lost, so a promoted replica is used quickly.
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: 2000,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    redisOptions: { ...nodeOptions, username: target.username, password: target.password, tls },
    // Managed TLS clusters (ElastiCache) announce addresses whose certificates name the configured host.
    ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
  };
  return new Cluster(target.nodes, clusterOptions);
}

/** A second connection to the same Redis, e.g. for a subscriber (a subscribed connection can do nothing else). */
export function duplicateConnection(connection: RedisConnection, overrides: Partial<RedisOptions>): RedisConnection {
  if (connection instanceof Cluster) {
    const { enableOfflineQueue, ...nodeOverrides } = overrides;
    return connection.duplicate(undefined, {
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: { ...connection.options.redisOptions, ...nodeOverrides },
    });
  }
  return reviveUnlessClosed(connection.duplicate(overrides));
}

/** Connections {@link closeConnection} was asked to close: the only ones allowed to stay ended. */
const closedOnPurpose = new WeakSet<RedisConnection>();

/** How soon an ended connection nobody closed is opened again. */
export const REVIVE_DELAY_MS = 100;

/**
 * ioredis (5.9) can end a Sentinel-followed connection for good in the middle of a failover: the failover
 * detector left from the lost master's connection answers +switch-master by marking the connector as not
 * connecting, and the reconnect attempt then asking a sentinel for the new master gives up with "Connection
 * is closed." and status `end` (redis/ioredis#1683; the detector's lifetime was fixed upstream after 6.0.0,
 * in no release yet). The service would then have no Redis until restarted, so an `end` that
 * {@link closeConnection} did not ask for is answered by connecting again.
 */
function reviveUnlessClosed(connection: Redis): Redis {
  connection.on('end', () => {
    if (closedOnPurpose.has(connection)) return;
    setTimeout(() => {
      if (connection.status === 'end' && !closedOnPurpose.has(connection)) connection.connect().catch(() => undefined);
    }, REVIVE_DELAY_MS).unref();
  });
  return connection;
}

export function isCluster(connection: RedisConnection): connection is Cluster {
  return connection instanceof Cluster;
}

/** How long a QUIT may take on a connection that is up before the socket is simply dropped. */
export const QUIT_GRACE_MS = 1000;

/**
 * Closes a connection for good. QUIT when it is up, so replies already on their way still arrive; otherwise at
 * once: a QUIT on a connection that is (re)connecting waits in the offline queue (the subscriber's is on) for a
 * Redis that may never come back, and held SIGTERM for the whole shutdown timeout with nothing in flight. A QUIT
 * that gets no answer within {@link QUIT_GRACE_MS} (Redis gone mid-way) is given up on the same way.
 */
export async function closeConnection(connection: RedisConnection, graceMs = QUIT_GRACE_MS): Promise<void> {
  closedOnPurpose.add(connection);
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'gave up'>((resolve) => (timer = setTimeout(() => resolve('gave up'), graceMs)));
  try {
    await Promise.race([connection.quit(), gaveUp]);
  } catch {
    // Dropped below either way.
  } finally {
    // Also after a QUIT that was answered: QUIT leaves a Sentinel-followed connection's failover-detector
    // subscriptions open (redis/ioredis#1362), holding the process; disconnect() closes them.
    connection.disconnect();
    clearTimeout(timer);
  }
}
