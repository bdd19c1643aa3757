import { DynamicModule, Module } from '@nestjs/common';
import { ClockModule } from './common/clock/clock.module';
import { LoggingModule } from './common/logging/logging.module';
import type { AppLogger } from './common/logging/logger';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { MetricsRegistryModule } from './common/metrics/metrics-registry.module';
import { CountersModule } from './counters/counters.module';
import { RedisClientModule } from './redis-client/redis-client.module';

/**
 * What both the HTTP service and the operator CLI stand on: configuration, logging, time, storage, and the
 * counters (rate-limit buckets, login-lock windows) with the Redis breaker and fleet count behind them, and the
 * metrics registry the components count into.
 */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        ClockModule,
        MetricsRegistryModule,
        DatabaseModule,
        RedisClientModule,
        CountersModule,
      ],
      exports: [DatabaseModule],
    };
  }
}
