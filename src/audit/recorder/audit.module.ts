import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuditRecorder } from './audit-recorder.service';

/**
 * The audit trail's recorder, global so that any module (a future feature module too) can inject
 * {@link AuditRecorder} without importing this one.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [AuditRecorder],
  exports: [AuditRecorder],
})
export class AuditModule {}
