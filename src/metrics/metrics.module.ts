import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';

/**
 * Prometheus metrics for operators, served at /metrics: what MetricsRegistryModule's `AppMetrics` holds
 * (components count into it and register their own figures; this module knows none of them).
 */
@Module({
  controllers: [MetricsController],
})
export class MetricsModule {}
