import {
  BeforeApplicationShutdown,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import { CircuitBreaker } from './circuit-breaker';
import { FleetPresence } from './fleet-presence';
import { openRedisConnection, parseRedisUrl, type RedisConnection } from './redis-connection';

// Re-exported: tests and the storage benchmark build their clients with the service's options.
export { redisOptions } from './redis-connection';

/** The shared connection (`RedisConnection`: one server, Sentinel-followed, or a Cluster); `null` without Redis. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
/** The process's one circuit breaker in front of every Redis use; `null` without Redis. */
export const REDIS_BREAKER = Symbol('REDIS_BREAKER');
/** How many instances are alive, as last seen through Redis; `null` without Redis (one instance). */
export const FLEET_PRESENCE = Symbol('FLEET_PRESENCE');

@Injectable()
class RedisLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection | null,
    @Inject(FLEET_PRESENCE) private readonly presence: FleetPresence | null,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    // Only a process that serves HTTP is part of the fleet; the operator CLI (an application context) is not.
    if (this.adapterHost?.httpAdapter) this.presence?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.presence?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/**
 * The shared Redis connection when `REDIS_URL` is set, the circuit breaker every use of it goes through, and the
 * fleet's presence count; all `null` when the service runs on one process alone.
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
    {
      provide: REDIS_BREAKER,
      inject: [REDIS_CLIENT, APP_LOGGER],
      useFactory: (redis: RedisConnection | null, logger: AppLogger): CircuitBreaker | null =>
        redis ? new CircuitBreaker(logger.child({ component: 'redis-breaker' })) : null,
    },
    {
      provide: FLEET_PRESENCE,
      inject: [REDIS_CLIENT, REDIS_BREAKER, AppConfig, APP_LOGGER],
      useFactory: (
        redis: RedisConnection | null,
        breaker: CircuitBreaker | null,
        config: AppConfig,
        logger: AppLogger,
      ): FleetPresence | null =>
        redis && breaker
          ? new FleetPresence(redis, breaker, `${config.redisKeyPrefix}instances`, logger.child({ component: 'fleet' }))
          : null,
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT, REDIS_BREAKER, FLEET_PRESENCE],
})
export class RedisClientModule {}
