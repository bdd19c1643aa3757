import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { DataSource } from 'typeorm';
import { AuditRecorder } from '../../src/audit/recorder/audit-recorder.service';
import { SystemClock } from '../../src/platform/common/clock/clock';
import { createLogger } from '../../src/platform/common/logging/logger';
import { AppMetrics } from '../../src/platform/common/metrics/app-metrics';
import { StreamOutbox } from '../../src/audit/event-streams/stream-outbox';

/**
 * The real audit recorder writing through the real stream outbox, on `dataSource`, for a test that records events
 * in its own process while built instances deliver them: the recorder finds the outbox as in the service, by
 * Nest's discovery of its mark, in a module holding just the outbox.
 */
export async function streamRecorder(dataSource: DataSource): Promise<AuditRecorder> {
  const moduleRef = await Test.createTestingModule({ imports: [DiscoveryModule], providers: [StreamOutbox] }).compile();
  const recorder = new AuditRecorder(
    dataSource,
    new SystemClock(),
    createLogger('silent'),
    new AppMetrics(),
    moduleRef.get(DiscoveryService),
  );
  recorder.onModuleInit();
  return recorder;
}
