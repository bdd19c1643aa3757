import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_LOGGER } from '../logging/logging.module';
import type { AppLogger } from '../logging/logger';

/** How often the database is asked whether it is back while an outage lasts. */
const PROBE_INTERVAL_MS = 500;

/**
 * An outage of the database is logged twice: once when the first request is refused for it, once when the
 * database answers again, with how long it lasted and how many requests were refused meanwhile. A line (let
 * alone a stack) per refused request buried everything else: 4,227 lines in a 10 s outage.
 */
@Injectable()
export class DatabaseOutageLog implements OnApplicationShutdown {
  private startedAtMs?: number;
  private refused = 0;
  private probe?: NodeJS.Timeout;
  private probing = false;
  private readonly logger: AppLogger;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_LOGGER) logger: AppLogger,
  ) {
    this.logger = logger.child({ component: 'database' });
  }

  /** Whether an outage is in progress (a request was refused and the database has not answered since). */
  get ongoing(): boolean {
    return this.startedAtMs !== undefined;
  }

  /** A request answered 503 because the database could not be reached. */
  requestRefused(error: unknown): void {
    this.refused++;
    if (this.startedAtMs !== undefined) return;
    this.startedAtMs = Date.now();
    this.logger.warn(
      { event: 'database_outage_started', reason: reasonOf(error) },
      'database unavailable: requests that need it are answered 503 until it is back',
    );
    this.probe = setInterval(() => void this.check(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.probe);
  }

  private async check(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await this.dataSource.query('SELECT 1');
      this.ended();
    } catch {
      // Still away; the next probe asks again.
    } finally {
      this.probing = false;
    }
  }

  private ended(): void {
    if (this.startedAtMs === undefined) return;
    clearInterval(this.probe);
    this.logger.warn(
      { event: 'database_outage_ended', outage_ms: Date.now() - this.startedAtMs, refused_requests: this.refused },
      'database reachable again',
    );
    this.startedAtMs = undefined;
    this.refused = 0;
  }
}

/** The driver's one-line reason (never a stack, never a query's parameters). */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 200);
}
