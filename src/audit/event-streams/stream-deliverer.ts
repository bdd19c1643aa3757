import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { DataSource, type EntityManager } from 'typeorm';
import { loadAuditEvents } from '../recorder/audit-outbox';
import { StreamSecretBox } from '../../platform/keys/secret-boxes';
import { Clock } from '../../platform/common/clock/clock';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { AppConfig } from '../../platform/config/app-config';
import { AddressPolicy } from '../../platform/common/outbound/address-policy';
import { HOST_RESOLVER, type HostResolver } from '../../platform/common/outbound/pinned-request';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterFailure, type FailureState } from './stream-backoff';
import { StreamMetrics } from './stream-metrics';
import { StreamOutbox } from './stream-outbox';
import {
  countActiveStreams,
  type AttemptRow,
  type ClaimedStream,
  claimStream,
  isPlainStreamSecret,
  pendingRows,
  saveBatch,
  type StreamUpdate,
} from './stream-records';
import { postJson } from './stream-target';
import { deliverSigned } from './signed-delivery';

/** Events per batch, and the time after which a batch stops taking the next one (it holds the stream's lock). */
const BATCH_EVENTS = 100;
const BATCH_MS = 2000;
/** A retry due within this long is made in the same batch rather than after the stream is let go. */
const IN_BATCH_RETRY_MS = 100;
/** Streams one instance delivers to at once (each one at a time, in order); never more than there are streams. */
const SLOTS = 4;

/**
 * Delivers the outbox on every instance. Each batch takes one stream (see {@link claimStream}: a transaction-scoped
 * advisory lock on PostgreSQL, which PgBouncer's transaction mode keeps) and POSTs its pending events in
 * event order until one fails; the batch's outcome is written in the same transaction, so an instance killed
 * mid-batch leaves its rows to the next deliverer, which sends them again under the same `webhook-id`. On the
 * embedded database (one process, one session) nothing is held across the HTTP calls: the batch reads, POSTs,
 * then writes, and `busy` keeps this process's slots off each other's stream.
 *
 * No polling while no stream is active anywhere: stream changes are announced on the revocation bus.
 */
@Injectable()
export class StreamDeliverer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly policy: AddressPolicy;
  private readonly busy = new Set<string>();
  private activeStreams = 0;
  private slots = 0;
  private again = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: StreamMetrics,
    private readonly outbox: StreamOutbox,
    private readonly bus: RevocationBus,
    @Inject(HOST_RESOLVER) private readonly resolveHost: HostResolver,
    private readonly box: StreamSecretBox,
  ) {
    this.policy = new AddressPolicy(config.streamsAllowlist);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.outbox.onCommitted(() => {
      if (this.activeStreams > 0) this.wake();
    });
    this.bus.onNotice((notice) => {
      if (notice.type === 'event_streams' || notice.type === 'resync') void this.refresh();
    });
    await this.refresh();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.slots > 0) await new Promise<void>((done) => this.idle.add(done));
  }

  /** Streams were added, removed or paused somewhere: poll while any is active. */
  async refresh(): Promise<void> {
    try {
      this.activeStreams = await countActiveStreams(this.dataSource.manager);
    } catch (error) {
      this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'event streams: refresh');
      this.activeStreams = Math.max(this.activeStreams, 1);
    }
    if (this.activeStreams > 0) this.wake();
  }

  /** Starts delivering now (instead of at the next poll). */
  wake(): void {
    if (this.stopped) return;
    this.again = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // Extra slots would only find every stream taken, each finding costing a transaction.
    const wanted = this.config.usesEmbeddedDatabase ? 1 : Math.min(SLOTS, Math.max(1, this.activeStreams));
    while (this.slots < wanted) {
      this.slots++;
      void this.slot();
    }
  }

  /** A retry due before the next poll is not left waiting for it. */
  private wakeIn(ms: number): void {
    if (ms >= this.config.streamsPollMs) return;
    setTimeout(() => this.wake(), Math.max(0, ms)).unref();
  }

  private async slot(): Promise<void> {
    try {
      for (;;) {
        this.again = false;
        if (this.stopped || !(await this.deliverBatch())) {
          if (!this.again || this.stopped) break;
        }
      }
    } catch (error) {
      this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'event streams: batch');
    } finally {
      this.slots--;
      if (this.slots === 0) {
        for (const done of this.idle) done();
        this.idle.clear();
        if (!this.stopped && this.activeStreams > 0) {
          this.timer = setTimeout(() => this.wake(), this.config.streamsPollMs);
          this.timer.unref();
        }
      }
    }
  }

  /** One batch of one stream; false when no stream had due work. */
  private async deliverBatch(): Promise<boolean> {
    if (!this.config.usesEmbeddedDatabase) {
      return this.dataSource.transaction(async (manager) => {
        const stream = await claimStream(manager, this.clock.now(), [...this.busy], true);
        if (stream === null) return false;
        this.busy.add(stream.id);
        try {
          await this.run(stream, manager, manager);
        } finally {
          this.busy.delete(stream.id);
        }
        return true;
      });
    }
    const stream = await claimStream(this.dataSource.manager, this.clock.now(), [...this.busy], false);
    if (stream === null) return false;
    this.busy.add(stream.id);
    try {
      await this.run(stream, this.dataSource.manager, null);
    } finally {
      this.busy.delete(stream.id);
    }
    return true;
  }

  /**
   * The stream's secret, opened; a `whsec_` value not yet re-sealed (another instance starting) as it is. One
   * sealed with a key no longer configured cannot sign anything: the batch stops, logged at each poll, and the
   * events wait in the outbox until the operator configures that key again.
   */
  private signingSecret(stream: ClaimedStream): string {
    if (isPlainStreamSecret(stream.secret)) return stream.secret;
    const opened = this.box.open(stream.secret);
    if (opened === null) throw new Error(`the signing secret of stream ${stream.id} cannot be opened`);
    return opened.plain;
  }

  /** `writer` null: write in a short transaction of its own (embedded database). */
  private async run(stream: ClaimedStream, reader: EntityManager, writer: EntityManager | null): Promise<void> {
    const rows = await pendingRows(reader, stream.id, BATCH_EVENTS);
    const events = new Map(
      (
        await loadAuditEvents(
          reader,
          stream.companyId,
          rows.map((row) => row.eventId),
        )
      ).map((e) => [e.id, e]),
    );
    const webhook = new Webhook(this.signingSecret(stream));
    const started = performance.now();
    const done: string[] = [];
    const attempts: AttemptRow[] = [];
    let update: StreamUpdate = { kind: 'ok' };
    let failing: FailureState = stream;
    for (let index = 0; index < rows.length;) {
      const row = rows[index];
      const event = events.get(row.eventId);
      // Gone from the audit trail (retention): nothing left to send.
      if (event === undefined) {
        done.push(row.id);
        index++;
        continue;
      }
      if (attempts.length > 0 && performance.now() - started > BATCH_MS) break;
      const attempt = await deliverSigned(stream, webhook, event, this.clock.now(), (url, headers, body) =>
        postJson(url, headers, body, this.policy, this.resolveHost, this.config.streamsDeliveryTimeoutMs),
      );
      attempts.push(attempt);
      this.metrics.attempt(attempt.outcome);
      if (attempt.outcome === 'delivered') {
        done.push(row.id);
        failing = { failingSince: null, failures: 0 };
        update = { kind: 'ok' };
        this.metrics.delivered((attempt.attemptedAt.getTime() - Date.parse(event.occurred_at)) / 1000);
        index++;
        continue;
      }
      const next = afterFailure(failing, attempt.attemptedAt, this.config.streamsRetryBaseMs);
      if (next.paused) {
        const { failingSince, failures } = next;
        update = { kind: 'paused', failingSince, failures, error: attempt.error, at: attempt.attemptedAt };
        break;
      }
      const { failingSince, failures, retryAt } = next;
      update = { kind: 'retry', failingSince, failures, retryAt, error: attempt.error };
      // A retry due at once is made within the batch (the stream stays held, the order kept); a later one ends it.
      const wait = retryAt.getTime() - this.clock.nowMs();
      if (wait > IN_BATCH_RETRY_MS || performance.now() - started > BATCH_MS) break;
      if (wait > 0) await sleep(wait);
      failing = next;
    }
    if (update.kind === 'ok' && stream.failures === 0 && done.length === 0) return;
    const saved = writer
      ? await saveBatch(writer, stream.id, update, done, attempts)
      : await this.dataSource.transaction((manager) => saveBatch(manager, stream.id, update, done, attempts));
    if (saved && update.kind === 'retry') this.wakeIn(update.retryAt.getTime() - this.clock.nowMs());
    if (saved && update.kind === 'paused') {
      this.logger.warn(
        { stream_id: stream.id, company_id: stream.companyId },
        'event stream paused after failing for 24 hours',
      );
      void this.bus.publish({ type: 'event_streams' });
    }
  }
}
