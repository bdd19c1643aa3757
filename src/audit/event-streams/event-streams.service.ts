import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SealsColumn } from '../../platform/keys/sealed-columns';
import { StreamSecretBox } from '../../platform/keys/secret-boxes';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { type PageQueryDto, type Page, toPage } from '../../platform/common/http/pagination';
import { AppConfig } from '../../platform/config/app-config';
import { AddressPolicy } from '../../platform/common/outbound/address-policy';
import { HOST_RESOLVER, type HostResolver } from '../../platform/common/outbound/pinned-request';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { CreatedEventStreamDto, EventStreamDeliveryDto, EventStreamDto } from './dto/event-stream.dto';
import { EventStream, EventStreamDelivery } from './event-stream.entity';
import { StreamDeliverer } from './stream-deliverer';
import { STREAM_SECRETS } from './stream-records';
import { addressAllowed, urlProblem } from './stream-target';

/** Streams a company may have at once: each costs a row per event. */
export const MAX_STREAMS_PER_COMPANY = 10;

/**
 * `POST/GET/DELETE /v1/auditevents/streams` and the deliveries list. Marked with the streams' signing secrets,
 * which ENCRYPTION_KEY re-encrypts at start (the keys module's SealedColumnsResealer finds them by the mark).
 */
@SealsColumn(STREAM_SECRETS)
@Injectable()
export class EventStreamsService {
  private readonly policy: AddressPolicy;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly bus: RevocationBus,
    private readonly deliverer: StreamDeliverer,
    private readonly box: StreamSecretBox,
    config: AppConfig,
    @Inject(HOST_RESOLVER) private readonly resolveHost: HostResolver,
  ) {
    this.policy = new AddressPolicy(config.streamsAllowlist);
  }

  async create(companyId: number, url: string): Promise<CreatedEventStreamDto> {
    const problem = urlProblem(url);
    if (problem !== null) throw ApiError.validation(`The url ${problem}.`, [{ field: 'url', message: problem }]);
    if (!(await addressAllowed(url, this.policy, this.resolveHost))) {
      const message = 'must resolve to public internet addresses only';
      throw ApiError.validation(`The url ${message}.`, [{ field: 'url', message }]);
    }
    // Standard Webhooks: `whsec_` and the base64 of 24 to 64 random bytes. Shown once, stored sealed.
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const stream: EventStream = {
      id: randomUUID(),
      companyId,
      url,
      secret: this.box.seal(secret),
      state: 'active',
      failingSince: null,
      failures: 0,
      retryAt: null,
      lastError: null,
      pausedAt: null,
      createdAt: this.clock.now(),
    };
    await this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(EventStream);
      if ((await repository.countBy({ companyId })) >= MAX_STREAMS_PER_COMPANY) {
        throw ApiError.conflict(`A company has at most ${MAX_STREAMS_PER_COMPANY} streams.`);
      }
      await repository.insert(stream);
    });
    await this.changed();
    return { id: stream.id, url: stream.url, secret };
  }

  async list(companyId: number, query: PageQueryDto): Promise<Page<EventStreamDto>> {
    const [rows, total] = await this.dataSource.getRepository(EventStream).findAndCount({
      where: { companyId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: query.offset,
      take: query.per_page,
    });
    return toPage(rows.map(toJson), total, query);
  }

  async remove(companyId: number, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(EventStream).delete({ id, companyId });
    if (!result.affected) throw ApiError.notFound('No such stream.');
    await this.changed();
  }

  async deliveries(companyId: number, id: string, query: PageQueryDto): Promise<Page<EventStreamDeliveryDto>> {
    const found = await this.dataSource.getRepository(EventStream).existsBy({ id, companyId });
    if (!found) throw ApiError.notFound('No such stream.');
    const [rows, total] = await this.dataSource.getRepository(EventStreamDelivery).findAndCount({
      where: { streamId: id },
      order: { id: 'DESC' },
      skip: query.offset,
      take: query.per_page,
    });
    return toPage(rows.map(toDeliveryJson), total, query);
  }

  /** Every instance's deliverer looks again (starts or stops polling). */
  private async changed(): Promise<void> {
    await this.bus.publish({ type: 'event_streams' });
    await this.deliverer.refresh();
  }
}

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

function toJson(row: EventStream): EventStreamDto {
  return {
    id: row.id,
    url: row.url,
    state: row.state,
    created_at: new Date(row.createdAt).toISOString(),
    failing_since: iso(row.failingSince),
    last_error: row.lastError,
    paused_at: iso(row.pausedAt),
  };
}

function toDeliveryJson(row: EventStreamDelivery): EventStreamDeliveryDto {
  return {
    id: String(row.id),
    event_id: String(row.eventId),
    webhook_id: row.webhookId,
    attempted_at: new Date(row.attemptedAt).toISOString(),
    outcome: row.outcome,
    status: row.status,
    error: row.error,
    duration_ms: row.durationMs,
  };
}
