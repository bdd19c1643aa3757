import { LimitedCredentials } from './limited-credentials';
import { Module } from '@nestjs/common';
import { RoutePlanModule } from '../../platform/common/http/route-plan';
import { RateLimitPolicy } from './rate-limit.policy';

/**
 * The route → group and limits table, shared by the guard and the headers of answers no guard saw. It brings
 * in the route plans, and the memory of refused credentials that the guard writes and the status routes read (a global module: the auth and input guards read the same plans).
 */
@Module({
  imports: [RoutePlanModule],
  providers: [RateLimitPolicy, LimitedCredentials],
  exports: [RateLimitPolicy, LimitedCredentials],
})
export class RateLimitPolicyModule {}
