import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../../platform/common/clock/clock';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { liveOverrides } from './override-records';
import { type OverrideRule, OverrideTable } from './override-table';
import { ShadowLog } from './shadow-log';

/**
 * A reload without a notice, should one be lost (both transports away at that moment) or the database not have
 * answered at start: the same bound as a cached credential's freshness.
 */
const RELOAD_EVERY_MS = 30_000;

/**
 * This instance's copy of the live overrides: loaded at start and again whenever an "overrides changed" notice
 * arrives on the revocation bus (Redis pub/sub and PostgreSQL LISTEN/NOTIFY, whichever is up), so a change
 * made by the CLI on any instance holds on every instance within the bus's delivery time. The rate limiter's
 * question ({@link lookup}) is a read of memory; expiry is judged by the injected clock at that moment.
 */
@Injectable()
export class RateLimitOverrides implements OnModuleInit, OnApplicationShutdown {
  private table = OverrideTable.EMPTY;
  /** Reloads that started; an older one finishing late does not overwrite a newer one's table. */
  private generation = 0;
  private readonly shadowLog: ShadowLog;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly bus: RevocationBus,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.shadowLog = new ShadowLog(clock);
  }

  async onModuleInit(): Promise<void> {
    this.bus.onNotice((notice) => {
      if (notice.type === 'rate_limit_overrides' || notice.type === 'resync') void this.reload();
    });
    await this.reload();
    this.timer = setInterval(() => void this.reload(), RELOAD_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** False while no override exists: the rate limiter then skips the question altogether. */
  get any(): boolean {
    return this.table.size > 0;
  }

  lookup(companyId: number, apiKeyId: string | null, method: string, group: string): OverrideRule | undefined {
    return this.table.lookup(companyId, apiKeyId, method, group, this.clock.nowMs());
  }

  /** The company's live overrides as this instance applies them. */
  ofCompany(companyId: number): OverrideRule[] {
    return this.table.ofCompany(companyId, this.clock.nowMs());
  }

  /** A request a shadow override would have refused: logged at most once per identifier per minute. */
  shadowLimited(identifier: string, rule: OverrideRule): void {
    if (!this.shadowLog.due(identifier)) return;
    this.logger.info(
      { identifier, override: rule.id, limit: rule.limit },
      'a shadow rate-limit override would have refused this request (admitted)',
    );
  }

  /** Holds these overrides from now on (a reload's result; unit specs set them directly). */
  replace(rules: readonly OverrideRule[]): void {
    this.table = new OverrideTable(rules);
  }

  /** Loads every live override; while the database does not answer, the table in memory stays. */
  async reload(): Promise<void> {
    const generation = ++this.generation;
    try {
      const rules = await liveOverrides(this.dataSource.manager, this.clock.now());
      if (generation === this.generation) this.replace(rules);
    } catch (error) {
      this.logger.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'could not load the rate-limit overrides; the ones in memory stay',
      );
    }
  }
}
