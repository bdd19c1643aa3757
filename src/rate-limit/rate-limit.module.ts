import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module';
import { RateLimitHeaders } from './rate-limit-headers';
import { RateLimitPolicyModule } from './rate-limit-policy.module';
import { RateLimitCredentials } from './rate-limit-credentials';
import { counterKey, memoryTracker, RateLimitGuard } from './rate-limit.guard';
import { RATE_LIMIT_WINDOW_MS, RateLimitPolicy } from './rate-limit.policy';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage';

/**
 * The request rate limit of the source's §8 on @nestjs/throttler: its module and guard with our storage (a
 * custom ThrottlerStorage), keys, limits and headers. Register {@link RateLimitGuard} as the first global guard.
 *
 * The source calls the algorithm a "leaky bucket" with a 3-second window after which "the count is reset to
 * 0"; what it describes is a fixed-window counter, and that is what runs: a counter per identifier starts at
 * the first request, admits `limit` requests, and empties all at once 3 seconds later (the bucket leaks its
 * whole content at the window's end rather than drop by drop). contract.md fixes this reading.
 */
@Module({
  imports: [
    // Only for RateLimitCredentials (the port CredentialService implements); the guard uses nothing else of it.
    AuthModule,
    RateLimitPolicyModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitPolicyModule, AuthModule],
      inject: [RATE_LIMIT_STORAGE, RateLimitPolicy, RateLimitCredentials],
      useFactory: (storage: RateLimitStorage, policy: RateLimitPolicy, credentials: RateLimitCredentials) => ({
        storage,
        throttlers: [
          {
            name: 'default',
            ttl: RATE_LIMIT_WINDOW_MS,
            // The window resets strictly: no block beyond it.
            blockDuration: 0,
            // The route's own per-method limit, or the source's table, scaled by RATE_LIMIT_SCALE.
            limit: (context) => policy.limitForContext(context),
          },
        ],
        getTracker: memoryTracker(policy, credentials),
        generateKey: (_context, tracker) => counterKey(tracker),
      }),
    }),
  ],
  providers: [RateLimitGuard, RateLimitHeaders],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}
