import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module';
import { RateLimitHeaders } from './rate-limit-headers';
import { RateLimitGuard } from './rate-limit.guard';
import { RATE_LIMIT_WINDOW_MS, RateLimitPolicy } from './rate-limit.policy';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage';

/**
 * The request rate limit of the source's §8 on @nestjs/throttler: its module and guard, with our storage,
 * keys, limits and headers. Register {@link RateLimitGuard} as the first global guard.
 */
@Module({
  imports: [
    AuthModule,
    DiscoveryModule,
    ThrottlerModule.forRootAsync({
      inject: [RATE_LIMIT_STORAGE],
      useFactory: (storage: RateLimitStorage) => ({
        // Per-method limits come from RateLimitPolicy; the window is fixed and resets strictly (no block).
        throttlers: [{ name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: 30, blockDuration: 0 }],
        storage,
      }),
    }),
  ],
  providers: [RateLimitPolicy, RateLimitGuard, RateLimitHeaders],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}
