import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { APP_LOGGER } from '../../common/logging/logging.module';
import type { AppLogger } from '../../common/logging/logger';
import { AppConfig } from '../../config/app-config';
import { REDIS_CLIENT } from '../../redis/redis.module';

/** What changed; every instance evicts the matching cached credentials. */
export type RevocationNotice =
  | { type: 'session'; sessionId: string }
  | { type: 'token'; tokenId: string }
  | { type: 'api_key'; keyId: string }
  | { type: 'membership'; employeeId: number; companyId: number };

const RECONNECT_DELAY_MS = 1000;
/** How long a revocation waits for the other instances to confirm they have forgotten the credential. */
const ACK_TIMEOUT_MS = 200;

/** On the wire: a notice from one instance, or another instance's confirmation that it applied one. */
type Envelope = { id: string; from: string; notice: RevocationNotice } | { ack: string; from: string };

interface PendingConfirmation {
  received: number;
  /** Unknown until the send returns; confirmations can arrive before that. */
  expected?: number;
  done: () => void;
}

/** How notices travel between processes. */
interface Transport {
  start(deliver: (message: string) => void): Promise<void>;
  /** Sends and returns how many other instances listen (and so should confirm). */
  send(message: string): Promise<number>;
  /** Sends without waiting for anything (confirmations). */
  reply(message: string): Promise<void>;
  stop(): Promise<void>;
}

/** Redis pub/sub, when REDIS_URL is set. A subscribed connection can do nothing else, so it has its own. */
class RedisTransport implements Transport {
  private subscriber?: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly channel: string,
  ) {}

  async start(deliver: (message: string) => void): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, message: string) => deliver(message));
    await this.subscriber.subscribe(this.channel);
  }

  async send(message: string): Promise<number> {
    // PUBLISH answers how many subscribers got it, this instance's own included.
    return Math.max(0, (await this.redis.publish(this.channel, message)) - 1);
  }

  async reply(message: string): Promise<void> {
    await this.redis.publish(this.channel, message);
  }

  async stop(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}

/**
 * PostgreSQL LISTEN/NOTIFY, when instances share PostgreSQL without Redis: the operator CLI and every instance
 * reach the same database, so a revocation made anywhere reaches every cache.
 */
class PostgresTransport implements Transport {
  /** Channels are per database, so one name serves every deployment. */
  private static readonly CHANNEL = 'staff_auth_revocations';
  private listener?: Client;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
  ) {}

  async start(deliver: (message: string) => void): Promise<void> {
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 3000, keepAlive: true });
    client.on('notification', (notification) => notification.payload && deliver(notification.payload));
    client.on('error', () => this.reconnect(deliver));
    this.listener = client;
    await client.connect();
    await client.query(`LISTEN ${PostgresTransport.CHANNEL}`);
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

  private reconnect(deliver: (message: string) => void): void {
    const broken = this.listener;
    this.listener = undefined;
    broken?.end().catch(() => undefined);
    if (this.stopped) return;
    setTimeout(() => {
      if (this.stopped) return;
      this.start(deliver).catch(() => this.reconnect(deliver));
    }, RECONNECT_DELAY_MS).unref();
    this.logger.warn('revocation listener lost its database connection; reconnecting');
  }
}

/**
 * Carries revocations to every instance: Redis pub/sub when REDIS_URL is set, PostgreSQL LISTEN/NOTIFY when
 * only DATABASE_URL is, and within this process alone on the embedded database (one process at a time).
 * The database stays the source of truth; a notice only tells caches to forget.
 *
 * A notice alone would race the next request: another instance could answer from its cache before the notice
 * reaches it. So each instance confirms a notice once applied, and {@link publish} waits (briefly, bounded) for
 * every listening instance's confirmation: when a logout has been answered, no instance still trusts the token.
 */
@Injectable()
export class RevocationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly listeners: Array<(notice: RevocationNotice) => void> = [];
  private readonly transport?: Transport;
  private readonly instanceId = randomUUID();
  private readonly awaitingAcks = new Map<string, PendingConfirmation>();

  constructor(
    @Inject(REDIS_CLIENT) redis: Redis | null,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    config: AppConfig,
    dataSource: DataSource,
  ) {
    if (redis) this.transport = new RedisTransport(redis, `${config.redisKeyPrefix}revocations`);
    else if (config.databaseUrl) this.transport = new PostgresTransport(config.databaseUrl, dataSource, logger);
  }

  async onModuleInit(): Promise<void> {
    await this.transport?.start((message) => this.receive(message)).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'revocation notices from other instances are not received yet');
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.transport?.stop();
  }

  onNotice(listener: (notice: RevocationNotice) => void): void {
    this.listeners.push(listener);
  }

  /** Applies the notice here at once, then on every other instance, and returns when they have confirmed. */
  async publish(notice: RevocationNotice): Promise<void> {
    this.deliver(notice);
    if (!this.transport) return;
    const id = randomUUID();
    let confirmed!: () => void;
    const allConfirmed = new Promise<void>((resolve) => (confirmed = resolve));
    const pending: PendingConfirmation = { received: 0, done: confirmed };
    this.awaitingAcks.set(id, pending);
    let timer: NodeJS.Timeout | undefined;
    try {
      const envelope: Envelope = { id, from: this.instanceId, notice };
      pending.expected = await this.transport.send(JSON.stringify(envelope));
      if (pending.received >= pending.expected) return;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), ACK_TIMEOUT_MS);
      });
      if ((await Promise.race([allConfirmed, timedOut])) === 'timeout') {
        const missing = pending.expected - pending.received;
        this.logger.warn({ notice: notice.type, missing }, 'revocation not confirmed by every instance in time');
      }
    } catch (error) {
      // Other instances fall back on their cache's short freshness; the revocation itself is already stored.
      this.logger.warn({ err: error, notice: notice.type }, 'could not publish a revocation notice');
    } finally {
      clearTimeout(timer);
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
      this.acknowledge(envelope.ack);
      return;
    }
    this.deliver(envelope.notice);
    const ack: Envelope = { ack: envelope.id, from: this.instanceId };
    this.transport?.reply(JSON.stringify(ack)).catch(() => {
      // The publisher stops waiting after its timeout; nothing else depends on the confirmation.
    });
  }

  private acknowledge(id: string): void {
    const pending = this.awaitingAcks.get(id);
    if (!pending) return;
    pending.received += 1;
    if (pending.expected !== undefined && pending.received >= pending.expected) pending.done();
  }

  private deliver(notice: RevocationNotice): void {
    for (const listener of this.listeners) listener(notice);
  }
}
