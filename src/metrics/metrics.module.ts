import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MetricsController } from './metrics.controller';

/** Prometheus metrics for operators: what the service counts, served at /metrics. */
@Module({
  imports: [AuthModule],
  controllers: [MetricsController],
})
export class MetricsModule {}
