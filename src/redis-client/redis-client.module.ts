import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * Options shared by every Redis connection of the service. No offline queue: a command issued while Redis is
 * away fails at once instead of being replayed (and counted twice) on reconnect.
 */
export function redisOptions(): import('ioredis').RedisOptions {
  return {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    // No auto-pipelining: ioredis keeps one auto-pipeline in flight per connection, so under a burst every
    // check queues behind the previous batch's round trip; in the two-instance test that pushed checks past
    // the storage's 75 ms deadline, opening the breaker and splitting the shared limit per instance. On this
    // machine it saved no CPU either: the Pipeline bookkeeping costs what the fewer syscalls save.
  };
}

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis?.disconnect());
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
      useFactory: (config: AppConfig): Redis | null => {
        if (!config.redisUrl) return null;
        const client = new Redis(config.redisUrl, redisOptions());
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
