import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { closeConnection, openRedisConnection, parseRedisUrl, type RedisConnection } from './redis-connection';

// Re-exported: tests and the storage benchmark build their clients with the service's options.
export { redisOptions } from './redis-connection';

/** The shared connection (`RedisConnection`: one server, Sentinel-followed, or a Cluster); `null` without Redis. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

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
      provide: REDIS_CLIENT,
      inject: [AppConfig],
      useFactory: (config: AppConfig): RedisConnection | null => {
        if (!config.redisUrl) return null;
        const client = openRedisConnection(parseRedisUrl(config.redisUrl), config.redisTlsCaFile);
        // Connection errors surface through health and each command's own failure; an unhandled 'error'
        // event would otherwise crash the process.
        client.on('error', () => undefined);
        return client;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisClientModule {}
