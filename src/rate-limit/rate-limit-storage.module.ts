import { Global, Module } from '@nestjs/common';
import type { RedisConnection } from '../redis-client/redis-connection';
import { Clock } from '../common/clock/clock';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import type { CircuitBreaker } from '../redis-client/circuit-breaker';
import type { FleetPresence } from '../redis-client/fleet-presence';
import { FLEET_PRESENCE, REDIS_BREAKER, REDIS_CLIENT } from '../redis-client/redis-client.module';
import { MemoryRateLimitStorage } from './storage/memory-rate-limit.storage';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage';
import { RedisRateLimitStorage } from './storage/redis-rate-limit.storage';
import { ResilientRateLimitStorage } from './storage/resilient-rate-limit.storage';

/**
 * The counters shared by the request rate limit, the failed-login lockout and the company-switch limit: in
 * process memory for one instance, or in Redis for many — behind the process's Redis circuit breaker, falling
 * back to memory at this instance's share of each limit, `ceil(limit / N)`, while Redis is away.
 */
@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [Clock, AppConfig, REDIS_CLIENT, REDIS_BREAKER, FLEET_PRESENCE, APP_LOGGER],
      useFactory: (
        clock: Clock,
        config: AppConfig,
        redis: RedisConnection | null,
        breaker: CircuitBreaker | null,
        presence: FleetPresence | null,
        logger: AppLogger,
      ): RateLimitStorage => {
        const memory = new MemoryRateLimitStorage(clock);
        if (!redis || !breaker) return memory;
        const shared = new RedisRateLimitStorage(redis, { keyPrefix: `${config.redisKeyPrefix}rl:` });
        return new ResilientRateLimitStorage(shared, memory, logger.child({ component: 'rate-limit-storage' }), {
          breaker,
          fleetSize: () => presence?.size ?? 1,
        });
      },
    },
  ],
  exports: [RATE_LIMIT_STORAGE],
})
export class RateLimitStorageModule {}
