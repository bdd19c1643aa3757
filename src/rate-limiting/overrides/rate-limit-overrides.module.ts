import { Module } from '@nestjs/common';
import { RevocationModule } from '../../platform/revocation/revocation.module';
import { RateLimitOverrides } from './rate-limit-overrides';

/**
 * The operator's rate-limit overrides (docs/contract.md): the table rate_limit_override (override-records.ts,
 * for the CLI) and every instance's copy of it in memory ({@link RateLimitOverrides}), read by the rate limiter
 * and GET /v1/ratelimits.
 */
@Module({
  imports: [RevocationModule],
  providers: [RateLimitOverrides],
  exports: [RateLimitOverrides],
})
export class RateLimitOverridesModule {}
