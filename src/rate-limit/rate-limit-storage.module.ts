import { Global, Module } from '@nestjs/common';
import type Redis from 'ioredis';
import { Clock } from '../common/clock/clock';
import { APP_LOGGER } from '../common/logging/logging.module';
import type { AppLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import { REDIS_CLIENT } from '../redis/redis.module';
import { MemoryRateLimitStorage } from './storage/memory-rate-limit.storage';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage';
import { RedisRateLimitStorage } from './storage/redis-rate-limit.storage';
import { ResilientRateLimitStorage } from './storage/resilient-rate-limit.storage';

/**
 * The counters shared by the request rate limit, the failed-login lockout and the company-switch limit: in
 * process memory for one instance, or in Redis for many — behind a circuit breaker that falls back to memory
 * (fail open) while Redis is away.
 */
@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [Clock, AppConfig, REDIS_CLIENT, APP_LOGGER],
      useFactory: (clock: Clock, config: AppConfig, redis: Redis | null, logger: AppLogger): RateLimitStorage => {
        const memory = new MemoryRateLimitStorage(clock);
        if (!redis) return memory;
        const shared = new RedisRateLimitStorage(redis, { keyPrefix: `${config.redisKeyPrefix}rl:` });
        return new ResilientRateLimitStorage(shared, memory, logger.child({ component: 'rate-limit-storage' }));
      },
    },
  ],
  exports: [RATE_LIMIT_STORAGE],
})
export class RateLimitStorageModule {}
