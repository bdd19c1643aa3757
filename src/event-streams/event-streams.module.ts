import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SEALED_COLUMNS, type SealedColumn } from '../auth/mfa/sealed-columns';
import { HOST_RESOLVER, systemHostResolver } from '../common/outbound/pinned-request';
import { RevocationModule } from '../revocation/revocation.module';
import { EventStreamsController } from './event-streams.controller';
import { EventStreamsService } from './event-streams.service';
import { StreamDeliverer } from './stream-deliverer';
import { StreamMetrics } from './stream-metrics';
import { StreamOutbox } from './stream-outbox';
import { STREAM_SECRETS } from './stream-records';

/**
 * Security-event streams (docs/contract.md, "Other systems plug in"): the routes, the outbox the audit recorder
 * writes through (marked @AuditOutboxSink, found by the recorder: src/audit never names this folder), and
 * the deliverer every instance runs.
 */
@Module({
  imports: [AuthModule, RevocationModule],
  controllers: [EventStreamsController],
  providers: [
    EventStreamsService,
    StreamOutbox,
    StreamDeliverer,
    StreamMetrics,
    { provide: HOST_RESOLVER, useValue: systemHostResolver },
  ],
})
export class EventStreamsModule implements OnModuleInit {
  constructor(@Inject(SEALED_COLUMNS) private readonly sealedColumns: SealedColumn[]) {}

  onModuleInit(): void {
    // The signing secrets join the columns ENCRYPTION_KEY re-encrypts at start, as SsoModule's client secrets.
    if (!this.sealedColumns.includes(STREAM_SECRETS)) this.sealedColumns.push(STREAM_SECRETS);
  }
}
