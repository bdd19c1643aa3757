import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { DataSource, EntityManager } from 'typeorm';
import type { ResealBatch, SealCursor } from '../common/sealing/reseal-rows';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { discover } from '../common/discovery/discovered';
import { StartupDatabase } from '../database/database.module';
import { type SecretBox, SsoSecretBox, StreamSecretBox, TotpSecretBox } from './secret-boxes';

/**
 * A column that holds values sealed by {@link TotpSecretBox}, as its owner's re-encryption batch: the next
 * `limit` values after `afterId` not starting with `currentPrefix`, each replaced by `reseal`'s answer (null:
 * unreadable, left alone), rows locked with SKIP LOCKED, each write checking the value is still the one read.
 */
export interface SealedColumn {
  name: string;
  /** Which box sealed its values: each purpose has its own key. */
  purpose: 'totp' | 'sso_client_secret' | 'event_stream_secret';
  /** Below every key of the table (default 0, for integer keys). */
  firstCursor?: SealCursor;
  /**
   * A value stored before the column was sealed at all (event-stream secrets were kept as given out): sealed
   * as it is, where any other value not under the current key is opened and sealed again.
   */
  isPlain?(value: string): boolean;
  resealBatch(
    manager: EntityManager,
    currentPrefix: string,
    afterId: SealCursor,
    limit: number,
    reseal: (sealed: string) => string | null,
  ): Promise<ResealBatch>;
}

/**
 * Marks a provider of the module owning a sealed column (SSO client secrets, event-stream secrets) with that
 * column, e.g. `@SealsColumn(SSO_CLIENT_SECRETS)` on the service that writes it: {@link SealedColumnsResealer}
 * finds it at start, so this module imports nothing of the modules that own the columns.
 */
export const SealsColumn = DiscoveryService.createDecorator<SealedColumn>();

const BATCH = 500;

/**
 * At start, after the migrations: what is stored sealed under an older key (the JWT-derived one, once
 * ENCRYPTION_KEY is set) is sealed again under the current key, batch by batch in short transactions. Idempotent
 * (values already under the current key are not touched) and safe with several instances starting together
 * (each batch locks its rows and skips those another instance holds). Old values are overwritten, not kept.
 */
@Injectable()
export class SealedColumnsResealer implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly totpBox: TotpSecretBox,
    private readonly ssoBox: SsoSecretBox,
    private readonly streamBox: StreamSecretBox,
    private readonly startup: StartupDatabase,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const columns = this.columns();
    if (columns.length > 0) await this.startup.run((dataSource) => this.resealColumns(dataSource, columns));
  }

  private async resealColumns(dataSource: DataSource, columns: SealedColumn[]): Promise<void> {
    for (const column of columns) {
      const { resealed, unreadable } = await this.resealColumn(dataSource, column);
      if (resealed > 0) this.logger.info({ column: column.name, resealed }, 'stored secrets sealed with the new key');
      if (unreadable > 0) {
        this.logger.warn(
          { column: column.name, unreadable },
          'stored secrets sealed with a key no longer configured were left as they are',
        );
      }
    }
  }

  /** Every column a module marked (once each, by name). */
  private columns(): SealedColumn[] {
    const byName = new Map<string, SealedColumn>();
    for (const { meta } of discover<unknown, SealedColumn>(this.discovery, SealsColumn)) {
      if (!byName.has(meta.name)) byName.set(meta.name, meta);
    }
    return [...byName.values()];
  }

  private async resealColumn(
    dataSource: DataSource,
    column: SealedColumn,
  ): Promise<{ resealed: number; unreadable: number }> {
    const boxes: Record<SealedColumn['purpose'], SecretBox> = {
      totp: this.totpBox,
      sso_client_secret: this.ssoBox,
      event_stream_secret: this.streamBox,
    };
    const box = boxes[column.purpose];
    const reseal = (value: string) => (column.isPlain?.(value) ? box.seal(value) : box.reseal(value));
    const total = { resealed: 0, unreadable: 0 };
    let afterId = column.firstCursor ?? 0;
    for (;;) {
      const batch = await dataSource.transaction((manager) =>
        column.resealBatch(manager, box.currentPrefix, afterId, BATCH, reseal),
      );
      total.resealed += batch.resealed;
      total.unreadable += batch.unreadable;
      if (batch.lastId === null) return total;
      afterId = batch.lastId;
    }
  }
}
