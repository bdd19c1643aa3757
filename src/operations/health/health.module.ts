import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { AuthModule } from '../../identity/auth/auth.module';
import { HealthController } from './health.controller';
import { IndexController } from './index.controller';
import { MetricsController } from './metrics.controller';
import { RedisHealthIndicator } from './redis.health';

/**
 * The operator's endpoints: readiness and liveness (/health), the Prometheus text (/metrics), and `GET /`, which
 * points a visitor to /docs and /admin.
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), AuthModule],
  controllers: [HealthController, MetricsController, IndexController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
