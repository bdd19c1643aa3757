import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../counters/rate-limit-storage';
import { RateLimitCredentials } from './rate-limit-credentials';
import { RateLimitHeaders } from './rate-limit-headers';
import { counterKey } from './rate-limit-key';
import { RateLimitPolicyModule } from './rate-limit-policy.module';
import { RateLimitGuard } from './rate-limit.guard';
import { memoryTracker } from './rate-limit-tracker';
import { RATE_LIMIT_PERIOD_MS, RateLimitPolicy } from './rate-limit.policy';

/**
 * The request rate limit of the source's §8 on @nestjs/throttler: its module and guard with our storage (a
 * custom ThrottlerStorage from CountersModule), keys, limits and headers. Register {@link RateLimitGuard} as the
 * first global guard. {@link RateLimitCredentials} is bound where the app is assembled (app.module.ts).
 *
 * Each counter is a leaky bucket (docs/contract.md, computed as GCRA): it holds the table's limit and drains that
 * many requests per 3 seconds, so a client gets at most the limit in one burst and the limit per 3 seconds when
 * sustained; the throttler's `ttl` is that drain period.
 */
@Module({
  imports: [
    RateLimitPolicyModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitPolicyModule],
      inject: [RATE_LIMIT_STORAGE, RateLimitPolicy, RateLimitCredentials],
      useFactory: (storage: RateLimitStorage, policy: RateLimitPolicy, credentials: RateLimitCredentials) => ({
        storage,
        throttlers: [
          {
            name: 'default',
            ttl: RATE_LIMIT_PERIOD_MS,
            // The bucket is its own block: a refused request waits only for the next slot.
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
