import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { APP_LOGGER } from '../../common/logging/logging.module';
import type { AppLogger } from '../../common/logging/logger';
import { AppConfig } from '../../config/app-config';
import { type CircuitBreaker, withDeadline } from '../../counters/circuit-breaker';
import { FLEET_PRESENCE, REDIS_BREAKER } from '../../counters/counters.module';
import type { FleetPresence } from '../../counters/fleet-presence';
import { REDIS_CLIENT } from '../../redis-client/redis-client.module';
import { duplicateConnection, isCluster, type RedisConnection } from '../../redis-client/redis-connection';
import { AppMetrics } from '../../common/metrics/app-metrics';

/** What changed; every instance evicts the matching cached credentials. */
export type RevocationNotice =
  | { type: 'session'; sessionId: string }
  | { type: 'token'; tokenId: string }
  | { type: 'api_key'; keyId: string }
  | { type: 'membership'; employeeId: number; companyId: number };

const RECONNECT_DELAY_MS = 1000;
/** How long a revocation waits for the other instances to confirm they have forgotten the credential. */
const ACK_TIMEOUT_MS = 200;
/** How long a transport may take to accept a notice before it counts as unavailable for this one. */
const SEND_DEADLINE_MS = 500;
/** Notice ids remembered to drop the second copy (each notice travels over every transport). */
const SEEN_IDS_KEPT = 4096;

/** On the wire: a notice from one instance, or another instance's confirmation that it applied one. */
type Envelope = { id: string; from: string; notice: RevocationNotice } | { ack: string; from: string };

interface PendingConfirmation {
  /** Instances that confirmed; each confirms once per transport, so they are counted by id. */
  confirmedBy: Set<string>;
  /** The most listeners any transport reported; unknown until a send returns (confirmations can come first). */
  expected?: number;
  check: () => void;
}

/** How notices travel between processes. */
interface Transport {
  readonly name: string;
  start(deliver: (message: string) => void): Promise<void>;
  /** Sends and returns how many other instances listen (and so should confirm). */
  send(message: string): Promise<number>;
  /** Sends without waiting for anything (confirmations). */
  reply(message: string): Promise<void>;
  stop(): Promise<void>;
}

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
class RedisTransport implements Transport {
  readonly name = 'redis';
  private subscriber?: RedisConnection;

  constructor(
    private readonly redis: RedisConnection,
    private readonly breaker: CircuitBreaker,
    private readonly channel: string,
    private readonly instancesKey: string,
    private readonly presence: FleetPresence | null,
  ) {}

  async start(deliver: (message: string) => void): Promise<void> {
    // No command timeout here: a SUBSCRIBE issued while Redis is away waits in the queue for the connection.
    this.subscriber = duplicateConnection(this.redis, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, message: string) => deliver(message));
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
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
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

/**
 * PostgreSQL LISTEN/NOTIFY, whenever instances share PostgreSQL: the operator CLI and every instance reach the
 * same database, so a revocation made anywhere reaches every cache, with or without Redis.
 */
class PostgresTransport implements Transport {
  readonly name = 'postgres';
  /** Channels are per database, so one name serves every deployment. */
  private static readonly CHANNEL = 'staff_auth_revocations';
  private listener?: Client;
  private stopped = false;
  /** Whether the current outage has been logged already: one line per lost connection, not per retry. */
  private lostLogged = false;

  constructor(
    private readonly url: string,
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
  ) {}

  async start(deliver: (message: string) => void): Promise<void> {
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 3000, keepAlive: true });
    client.on('notification', (notification) => notification.payload && deliver(notification.payload));
    client.on('error', () => this.lost(client, deliver));
    client.on('end', () => this.lost(client, deliver));
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${PostgresTransport.CHANNEL}`);
      if (this.lostLogged) this.logger.info('revocation listener reconnected to the database');
      this.lostLogged = false;
    } catch (error) {
      this.lost(client, deliver);
      throw error;
    }
  }

  async send(message: string): Promise<number> {
    // The listeners are the sessions whose last statement was this LISTEN: one per instance, this one included.
    // (Sessions of another role show no query text; then nobody is waited for and delivery is best effort.)
    const [{ listeners }] = await this.dataSource.query(
      `SELECT (SELECT count(*)::int FROM pg_stat_activity
                WHERE datname = current_database() AND query = $2) AS listeners,
              pg_notify($1, $3)`,
      [PostgresTransport.CHANNEL, `LISTEN ${PostgresTransport.CHANNEL}`, message],
    );
    return Math.max(0, Number(listeners) - 1);
  }

  async reply(message: string): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [PostgresTransport.CHANNEL, message]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => undefined);
  }

  /** The listening connection broke (error and end may both fire): replace it once, after a pause. */
  private lost(client: Client, deliver: (message: string) => void): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    setTimeout(() => {
      if (this.stopped) return;
      this.start(deliver).catch(() => undefined);
    }, RECONNECT_DELAY_MS).unref();
    if (this.lostLogged) return;
    this.lostLogged = true;
    this.logger.warn('revocation listener lost its database connection; reconnecting');
  }
}

/**
 * Carries revocations to every instance over every transport there is — Redis pub/sub when REDIS_URL is set and
 * PostgreSQL LISTEN/NOTIFY when DATABASE_URL is — each notice on all of them, applied once per instance (by id).
 * So a revocation reaches every instance whichever of Redis and PostgreSQL is answering. On the embedded
 * database (one process at a time) and without Redis it stays within this process. The database stays the
 * source of truth; a notice only tells caches to forget.
 *
 * A notice alone would race the next request: another instance could answer from its cache before the notice
 * reaches it. So each instance confirms a notice once applied, and {@link publish} waits (briefly, bounded) for
 * every listening instance's confirmation: when a logout has been answered, no instance still trusts the token.
 */
@Injectable()
export class RevocationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly listeners: Array<(notice: RevocationNotice) => void> = [];
  private readonly transports: Transport[] = [];
  private readonly instanceId = randomUUID();
  private readonly awaitingAcks = new Map<string, PendingConfirmation>();
  private readonly seen = new Set<string>();

  constructor(
    @Inject(REDIS_CLIENT) redis: RedisConnection | null,
    @Inject(REDIS_BREAKER) breaker: CircuitBreaker | null,
    @Inject(FLEET_PRESENCE) presence: FleetPresence | null,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    config: AppConfig,
    dataSource: DataSource,
    private readonly metrics: AppMetrics,
  ) {
    if (redis && breaker) {
      const prefix = config.redisKeyPrefix;
      this.transports.push(new RedisTransport(redis, breaker, `${prefix}revocations`, `${prefix}instances`, presence));
    }
    // LISTEN needs a session of its own: through a pooler in transaction mode it would listen on whichever
    // server connection the pooler lent, and hear nothing once that one is lent to another client.
    const listenUrl = config.databaseDirectUrl ?? config.databaseUrl;
    if (listenUrl) this.transports.push(new PostgresTransport(listenUrl, dataSource, logger));
  }

  async onModuleInit(): Promise<void> {
    await Promise.all(
      this.transports.map((transport) =>
        transport
          .start((message) => this.receive(message))
          .catch((error: unknown) => {
            // Expected weather (Redis or PostgreSQL away at start), not a bug: the reason, no stack.
            this.logger.warn(
              { transport: transport.name, reason: error instanceof Error ? error.message : String(error) },
              'revocation notices from other instances are not received through this transport yet',
            );
          }),
      ),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.transports.map((transport) => transport.stop()));
  }

  onNotice(listener: (notice: RevocationNotice) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Applies the notice here at once, then on every other instance, and returns when they have confirmed, or
   * after a bounded wait: a transport that is away (Redis down) costs nothing, one that hangs at most its
   * send deadline.
   */
  async publish(notice: RevocationNotice): Promise<void> {
    this.metrics.revocation(notice.type);
    this.deliver(notice);
    if (this.transports.length === 0) return;
    const id = randomUUID();
    const message = JSON.stringify({ id, from: this.instanceId, notice } satisfies Envelope);
    let settle!: (outcome: 'confirmed' | 'unsent' | 'timeout') => void;
    const outcome = new Promise<'confirmed' | 'unsent' | 'timeout'>((resolve) => (settle = resolve));
    const pending: PendingConfirmation = {
      confirmedBy: new Set(),
      check: () => {
        if (pending.expected !== undefined && pending.confirmedBy.size >= pending.expected) settle('confirmed');
      },
    };
    this.awaitingAcks.set(id, pending);
    let ackTimer: NodeJS.Timeout | undefined;
    const sendTimer = setTimeout(() => settle('unsent'), SEND_DEADLINE_MS);
    const failures: Array<{ transport: string; reason: string }> = [];
    const sent = this.transports.map((transport) =>
      transport.send(message).then(
        (listening) => {
          if (pending.expected === undefined) {
            clearTimeout(sendTimer);
            ackTimer = setTimeout(() => settle('timeout'), ACK_TIMEOUT_MS);
          }
          pending.expected = Math.max(pending.expected ?? 0, listening);
          pending.check();
        },
        (error: unknown) =>
          failures.push({ transport: transport.name, reason: error instanceof Error ? error.message : String(error) }),
      ),
    );
    void Promise.all(sent).then(() => pending.expected === undefined && settle('unsent'));
    try {
      const result = await outcome;
      if (result === 'timeout') {
        const missing = (pending.expected ?? 0) - pending.confirmedBy.size;
        this.logger.warn({ notice: notice.type, missing }, 'revocation not confirmed by every instance in time');
      } else if (result === 'unsent') {
        // Other instances fall back on their cache's short freshness; the revocation itself is already stored.
        this.logger.warn({ notice: notice.type, failures }, 'could not publish a revocation notice');
      }
    } finally {
      clearTimeout(sendTimer);
      clearTimeout(ackTimer);
      this.awaitingAcks.delete(id);
    }
  }

  private receive(message: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch (error) {
      this.logger.warn({ err: error }, 'unreadable revocation notice');
      return;
    }
    if (envelope.from === this.instanceId) return;
    if ('ack' in envelope) {
      this.acknowledge(envelope.ack, envelope.from);
      return;
    }
    // The same notice arrives once per transport; the first copy applies and confirms it.
    if (this.seen.has(envelope.id)) return;
    this.remember(envelope.id);
    this.deliver(envelope.notice);
    const ack = JSON.stringify({ ack: envelope.id, from: this.instanceId } satisfies Envelope);
    for (const transport of this.transports) {
      transport.reply(ack).catch(() => {
        // The publisher stops waiting after its timeout; nothing else depends on the confirmation.
      });
    }
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > SEEN_IDS_KEPT) this.seen.delete(this.seen.values().next().value!);
  }

  private acknowledge(id: string, from: string): void {
    const pending = this.awaitingAcks.get(id);
    if (!pending) return;
    pending.confirmedBy.add(from);
    pending.check();
  }

  private deliver(notice: RevocationNotice): void {
    for (const listener of this.listeners) listener(notice);
  }
}
