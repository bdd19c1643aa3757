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
  };
}

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/** The shared Redis connection when `REDIS_URL` is set; `null` when the service runs on one process alone. */
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
    RedisCloser,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule {}
