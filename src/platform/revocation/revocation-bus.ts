import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import type { CircuitBreaker } from '../counters/circuit-breaker';
import { FLEET_PRESENCE, REDIS_BREAKER } from '../counters/counters.module';
import type { FleetPresence } from '../counters/fleet-presence';
import { REDIS_CLIENT } from '../redis-client/redis-client.module';
import type { RedisConnection } from '../redis-client/redis-connection';
import { AppMetrics } from '../common/metrics/app-metrics';
import { PostgresTransport } from './postgres-transport';
import { RedisTransport } from './redis-transport';
import { type RevocationNotice, SEND_DEADLINE_MS, type Transport } from './transport';

export type { RevocationNotice } from './transport';

/** How long a revocation waits for the other instances to confirm they have forgotten the credential. */
const ACK_TIMEOUT_MS = 200;
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
          .start(
            (message) => this.receive(message),
            () => this.resync(transport.name),
          )
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
    if (notice.type !== 'rate_limit_overrides' && notice.type !== 'event_streams') this.metrics.revocation(notice.type);
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

  /**
   * A transport listens again after an outage: notices sent while it was away may be lost for good (the other
   * transport, if any, may have been away too), so every cache here starts over rather than trust what a lost
   * notice would have evicted until its freshness runs out.
   */
  private resync(transport: string): void {
    this.logger.info({ transport }, 'revocation notices may have been missed: caches start over');
    this.deliver({ type: 'resync' });
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
