import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsService } from '../recorder/audit-events.service';
import { AuditRetention, AuditRetentionSchedule } from '../recorder/audit-retention.service';

/** `GET /v1/auditevents` and the audit trail's retention (the recorder itself is in src/audit). */
@Module({
  controllers: [AuditEventsController],
  providers: [AuditEventsService, AuditRetention, AuditRetentionSchedule],
  exports: [AuditEventsService, AuditRetention],
})
export class AuditEventsModule {}
