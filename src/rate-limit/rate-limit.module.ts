import { Module } from '@nestjs/common';
import { RateLimitOverridesModule } from '../rate-limit-overrides/rate-limit-overrides.module';
import { RateLimitHeaders } from './rate-limit-headers';
import { RateLimitPolicyModule } from './rate-limit-policy.module';
import { RateLimitGuard } from './rate-limit.guard';

/**
 * The request rate limit of the source's §8: {@link RateLimitGuard} with each route's limits from its plan
 * (RateLimitPolicy) and the buckets of CountersModule (a @nestjs/throttler ThrottlerStorage). Register
 * {@link RateLimitGuard} as the first global guard. RateLimitCredentials is bound where the app is assembled
 * (app.module.ts).
 *
 * Each counter is a leaky bucket (docs/contract.md, computed as GCRA): it holds the table's limit and drains that
 * many requests per 3 seconds, so a client gets at most the limit in one burst and the limit per 3 seconds when
 * sustained.
 */
@Module({
  imports: [RateLimitPolicyModule, RateLimitOverridesModule],
  providers: [RateLimitGuard, RateLimitHeaders],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}
