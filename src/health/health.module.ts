import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { AuthModule } from '../auth/auth.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { RedisHealthIndicator } from './redis.health';

/** The operator's endpoints: readiness and liveness (/health) and the Prometheus text (/metrics). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), AuthModule],
  controllers: [HealthController, MetricsController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
