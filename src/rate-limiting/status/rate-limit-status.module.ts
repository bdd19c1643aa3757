import { CompanyRateLimitsService } from './company-rate-limits.service';
import { Module } from '@nestjs/common';
import { AuthModule } from '../../identity/auth/auth.module';
import { RateLimitModule } from '../limiter/rate-limit.module';
import { RateLimitPolicyModule } from '../limiter/rate-limit-policy.module';
import { RateLimitOverridesModule } from '../overrides/rate-limit-overrides.module';
import { RateLimitQuotasModule } from '../quotas/rate-limit-quotas.module';
import { RateLimitStatusController } from './rate-limit-status.controller';
import { RateLimitStatusService } from './rate-limit-status.service';

/**
 * `GET /v1/ratelimits`: its own module, because it reads both the auth guard's and the limiter's pieces of the
 * route plans, and neither of those modules imports the other.
 */
@Module({
  imports: [AuthModule, RateLimitModule, RateLimitPolicyModule, RateLimitOverridesModule, RateLimitQuotasModule],
  controllers: [RateLimitStatusController],
  providers: [RateLimitStatusService, CompanyRateLimitsService],
})
export class RateLimitStatusModule {}
