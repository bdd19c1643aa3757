import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RateLimitOverridesModule } from '../overrides/rate-limit-overrides.module';
import { RateLimitQuotasModule } from '../quotas/rate-limit-quotas.module';
import { DiscoveredRateLimitCredentials } from './discovered-credentials';
import { RateLimitCredentials } from '../../access/rules/rate-limit-credentials';
import { RateLimitHeaders } from './rate-limit-headers';
import { RateLimitPolicyModule } from './rate-limit-policy.module';
import { RateLimitGuard } from './rate-limit.guard';

/**
 * The request rate limit of the source's §8: {@link RateLimitGuard} with each route's limits from its plan
 * (RateLimitPolicy) and the buckets of CountersModule (a @nestjs/throttler ThrottlerStorage). Register
 * {@link RateLimitGuard} as the first step of the one global guard (RequestGuard). RateLimitCredentials is the provider marked
 * @RateLimitCredentialSource() (the auth module's CredentialService), found at start.
 *
 * Each counter is a leaky bucket (docs/contract.md, computed as GCRA): it holds the table's limit and drains that
 * many requests per 3 seconds, so a client gets at most the limit in one burst and the limit per 3 seconds when
 * sustained.
 */
@Module({
  imports: [DiscoveryModule, RateLimitPolicyModule, RateLimitOverridesModule, RateLimitQuotasModule],
  providers: [
    { provide: RateLimitCredentials, useClass: DiscoveredRateLimitCredentials },
    RateLimitGuard,
    RateLimitHeaders,
  ],
  exports: [RateLimitGuard, RateLimitCredentials],
})
export class RateLimitModule {}
