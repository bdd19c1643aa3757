import { DynamicModule, Module } from '@nestjs/common';
import { ClockModule } from './platform/common/clock/clock.module';
import { LoggingModule } from './platform/common/logging/logging.module';
import type { AppLogger } from './platform/common/logging/logger';
import type { AppConfig } from './platform/config/app-config';
import { ConfigModule } from './platform/config/config.module';
import { databaseSchema } from './data-source';
import { DatabaseModule } from './platform/database/database.module';
import { DatabaseSchemaModule } from './platform/database/schema';
import { MetricsRegistryModule } from './platform/common/metrics/metrics-registry.module';
import { CountersModule } from './platform/counters/counters.module';
import { RedisClientModule } from './platform/redis-client/redis-client.module';

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
        DatabaseSchemaModule.forRoot(databaseSchema()),
        DatabaseModule,
        RedisClientModule,
        CountersModule,
      ],
      exports: [DatabaseModule],
    };
  }
}
