import { Global, Module } from '@nestjs/common';
import { AuditRecorder } from './audit-recorder.service';

/**
 * The audit trail's recorder, global so that any module (a future feature module too) can inject
 * {@link AuditRecorder} without importing this one.
 */
@Global()
@Module({
  providers: [AuditRecorder],
  exports: [AuditRecorder],
})
export class AuditModule {}
