import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import { closeConnection, openRedisConnection, parseRedisUrl, type RedisConnection } from './redis-connection';
import { RedisFailureWatch } from './redis-failure';

// Re-exported: tests and the storage benchmark build their clients with the service's options.
export { redisOptions } from './redis-connection';

/** The shared connection (`RedisConnection`: one server, Sentinel-followed, or a Cluster); `null` without Redis. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** The shared connection's {@link RedisFailureWatch} (why Redis is down, for `/health`); `null` without Redis. */
export const REDIS_FAILURES = Symbol('REDIS_FAILURES');

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisConnection | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis) await closeConnection(this.redis);
  }
}

/**
 * The shared Redis connection when `REDIS_URL` is set; `null` when the service runs on one process alone. The
 * circuit breaker every use of it goes through and the fleet's presence count live in CountersModule.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_FAILURES,
      inject: [AppConfig, APP_LOGGER],
      useFactory: (config: AppConfig, logger: AppLogger) => (config.redisUrl ? new RedisFailureWatch(logger) : null),
    },
    {
      provide: REDIS_CLIENT,
      inject: [AppConfig, REDIS_FAILURES],
      useFactory: (config: AppConfig, failures: RedisFailureWatch | null): RedisConnection | null => {
        if (!config.redisUrl) return null;
        const client = openRedisConnection(parseRedisUrl(config.redisUrl), config.redisTlsCaFile);
        // Each connection failure is named once per outage in the log and in /health; the listener also keeps
        // an 'error' event from crashing the process.
        failures!.watch(client);
        return client;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT, REDIS_FAILURES],
})
export class RedisClientModule {}
