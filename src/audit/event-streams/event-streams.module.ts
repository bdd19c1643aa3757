import { Module } from '@nestjs/common';
import { HOST_RESOLVER, systemHostResolver } from '../../platform/common/outbound/pinned-request';
import { KeysModule } from '../../platform/keys/keys.module';
import { RevocationModule } from '../../platform/revocation/revocation.module';
import { EventStreamsController } from './event-streams.controller';
import { EventStreamsService } from './event-streams.service';
import { StreamDeliverer } from './stream-deliverer';
import { StreamMetrics } from './stream-metrics';
import { StreamOutbox } from './stream-outbox';

/**
 * Security-event streams (docs/contract.md, "Other systems plug in"): the routes, the outbox the audit recorder
 * writes through (marked @AuditOutboxSink, found by the recorder: src/audit never names this folder), and
 * the deliverer every instance runs.
 */
@Module({
  imports: [KeysModule, RevocationModule],
  controllers: [EventStreamsController],
  providers: [
    EventStreamsService,
    StreamOutbox,
    StreamDeliverer,
    StreamMetrics,
    { provide: HOST_RESOLVER, useValue: systemHostResolver },
  ],
})
export class EventStreamsModule {}
