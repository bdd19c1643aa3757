import {
  BeforeApplicationShutdown,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { RedisConnection } from '../redis-client/redis-connection';
import { Clock } from '../common/clock/clock';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import { AppMetrics } from '../common/metrics/app-metrics';
import { REDIS_CLIENT } from '../redis-client/redis-client.module';
import { CircuitBreaker } from './circuit-breaker';
import { FleetPresence } from './fleet-presence';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './rate-limit-storage';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';
import { ResilientRateLimitStorage } from './resilient-rate-limit.storage';

/** The process's one circuit breaker in front of every Redis use; `null` without Redis. */
export const REDIS_BREAKER = Symbol('REDIS_BREAKER');
/** How many instances are alive, as last seen through Redis; `null` without Redis (one instance). */
export const FLEET_PRESENCE = Symbol('FLEET_PRESENCE');

/** The storage's own figures, read when scraped; without Redis they stay 0 (nothing can fall back). */
function registerStorageMetrics(metrics: AppMetrics, resilient: ResilientRateLimitStorage | undefined): void {
  metrics.readCounter({
    name: 'rate_limit_storage_fallbacks_total',
    help: 'Rate-limit checks answered from process memory because Redis failed or its circuit breaker was open.',
    read: () => resilient?.fallbackCount ?? 0,
  });
  metrics.readGauge({
    name: 'rate_limit_storage_breaker_open',
    help: '1 while the Redis circuit breaker of the rate-limit storage is open (counters in memory), else 0.',
    read: () => (resilient !== undefined && resilient.state !== 'closed' ? 1 : 0),
  });
}

@Injectable()
class PresenceLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(FLEET_PRESENCE) private readonly presence: FleetPresence | null,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    // Only a process that serves HTTP is part of the fleet; the operator CLI (an application context) is not.
    if (this.adapterHost?.httpAdapter) this.presence?.start();
  }

  // Before the Redis connection closes (RedisClientModule quits it on application shutdown).
  async beforeApplicationShutdown(): Promise<void> {
    await this.presence?.stop();
  }
}

/**
 * The counters shared by the request rate limit, the failed-login lock and the company-switch limit (leaky
 * buckets and fixed windows, see rate-limit-storage.ts): in process memory for one instance, or in Redis for
 * many, behind the process's Redis circuit breaker. While Redis is away each instance falls back to memory at
 * its share of each limit, N being the live instances last counted by {@link FleetPresence}.
 */
@Global()
@Module({
  providers: [
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
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [Clock, AppConfig, REDIS_CLIENT, REDIS_BREAKER, FLEET_PRESENCE, APP_LOGGER, AppMetrics],
      useFactory: (
        clock: Clock,
        config: AppConfig,
        redis: RedisConnection | null,
        breaker: CircuitBreaker | null,
        presence: FleetPresence | null,
        logger: AppLogger,
        metrics: AppMetrics,
      ): RateLimitStorage => {
        const memory = new MemoryRateLimitStorage(clock);
        const resilient =
          redis && breaker
            ? new ResilientRateLimitStorage(
                new RedisRateLimitStorage(redis, {
                  keyPrefix: `${config.redisKeyPrefix}rl:`,
                  leaseMs: config.concurrencyLeaseMs,
                }),
                memory,
                logger.child({ component: 'rate-limit-storage' }),
                { breaker, fleetSize: () => presence?.size ?? 1 },
              )
            : undefined;
        registerStorageMetrics(metrics, resilient);
        return resilient ?? memory;
      },
    },
    PresenceLifecycle,
  ],
  exports: [RATE_LIMIT_STORAGE, REDIS_BREAKER, FLEET_PRESENCE],
})
export class CountersModule {}
