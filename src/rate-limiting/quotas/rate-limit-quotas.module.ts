import { Module } from '@nestjs/common';
import { RevocationModule } from '../../platform/revocation/revocation.module';
import { RateLimitQuotas } from './rate-limit-quotas';

/**
 * The operator's quotas (docs/contract.md, "Beyond the bucket": quotas): the table rate_limit_quota
 * (quota-records.ts, for the CLI) and every instance's copy of it in memory with the counting
 * ({@link RateLimitQuotas}), a step of the rate limiter's decision, read by GET /v1/ratelimits too.
 */
@Module({
  imports: [RevocationModule],
  providers: [RateLimitQuotas],
  exports: [RateLimitQuotas],
})
export class RateLimitQuotasModule {}
