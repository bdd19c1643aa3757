import { Module, type OnModuleInit } from '@nestjs/common';
import { AuditRecorder } from '../audit/audit-recorder.service';
import { HOST_RESOLVER, systemHostResolver } from '../common/outbound/pinned-request';
import { RevocationModule } from '../revocation/revocation.module';
import { EventStreamsController } from './event-streams.controller';
import { EventStreamsService } from './event-streams.service';
import { StreamDeliverer } from './stream-deliverer';
import { StreamMetrics } from './stream-metrics';
import { StreamOutbox } from './stream-outbox';

/**
 * Security-event streams (docs/contract.md, "Other systems plug in"): the routes, the outbox the audit recorder
 * writes through (plugged in here, so src/audit never names this folder), and the deliverer every instance runs.
 */
@Module({
  imports: [RevocationModule],
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
  constructor(
    private readonly recorder: AuditRecorder,
    private readonly outbox: StreamOutbox,
  ) {}

  onModuleInit(): void {
    this.recorder.useOutbox(this.outbox);
  }
}
