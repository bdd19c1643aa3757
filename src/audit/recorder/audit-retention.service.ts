import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../../platform/common/clock/clock';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { serializeError } from '../../platform/common/logging/logger';
import { AppConfig } from '../../platform/config/app-config';

export const RETENTION_BATCH = 1000;
/** Between batches: the job yields the database's CPU to requests, which matters on a small machine. */
export const RETENTION_PAUSE_MS = 10;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Any fixed number: the advisory lock every instance's retention job takes for one batch. */
const RETENTION_LOCK_KEY = 0x61756469; // "audi"

/**
 * Deletes security events older than AUDIT_RETENTION_DAYS, 1000 rows per statement.
 *
 * Locks: each batch is one short transaction that first takes `pg_try_advisory_xact_lock` (so one instance
 * deletes at a time, and the lock ends with the transaction: nothing is left held on a pooled connection behind
 * PgBouncer in transaction mode, where a session-level lock would stay with whichever client got the server
 * connection next). A batch that does not get the lock stops the run: another instance is at it. The rows
 * are taken `FOR UPDATE SKIP LOCKED`. Requests never wait on any of this: readers see the rows through MVCC,
 * and new events are new rows; nothing else locks or references old events.
 */
@Injectable()
export class AuditRetention {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Deletes every expired event, batch by batch; answers how many. 0 when retention is off. */
  async runOnce(): Promise<number> {
    if (this.config.auditRetentionDays === 0) return 0;
    const cutoff = new Date(this.clock.nowMs() - this.config.auditRetentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await this.deleteBatch(cutoff);
      if (deleted === null) return total;
      total += deleted;
      if (deleted < RETENTION_BATCH) return total;
      await new Promise((resolve) => setTimeout(resolve, RETENTION_PAUSE_MS));
    }
  }

  /** One batch in its own transaction; null when another instance holds the lock. */
  async deleteBatch(cutoff: Date): Promise<number | null> {
    return this.dataSource.transaction(async (manager) => {
      const [{ locked }] = await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [RETENTION_LOCK_KEY]);
      if (!locked) return null;
      const deleted: Array<{ count: number }> = await manager.query(
        `WITH deleted AS (
           DELETE FROM audit_events WHERE id IN (
             SELECT id FROM audit_events WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS count FROM deleted`,
        [cutoff, RETENTION_BATCH],
      );
      return deleted[0].count;
    });
  }
}

/** First run a minute after the start, then hourly; never in the CLI, which runs the job only when asked. */
export const RETENTION_FIRST_RUN_MS = 60_000;
export const RETENTION_INTERVAL_MS = 60 * 60_000;

/** Runs {@link AuditRetention} periodically in the service. */
@Injectable()
export class AuditRetentionSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly retention: AuditRetention,
    private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.auditRetentionDays === 0) return;
    this.timer = setTimeout(() => this.tick(), RETENTION_FIRST_RUN_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    this.running = this.retention
      .runOnce()
      .then((deleted) => {
        if (deleted > 0) this.logger.info({ deleted }, 'audit retention: expired security events deleted');
      })
      .catch((error: unknown) => this.logger.warn({ err: serializeError(error) }, 'audit retention run failed'))
      .finally(() => {
        this.running = undefined;
        if (this.timer !== undefined) this.timer = setTimeout(() => this.tick(), RETENTION_INTERVAL_MS).unref();
      });
  }
}
