import { Module } from '@nestjs/common';
import { RoutePlanModule } from '../common/http/route-plan';
import { RateLimitPolicy } from './rate-limit.policy';

/**
 * The route → group and limits table, shared by the guard and the headers of answers no guard saw. It brings
 * in the route plans (a global module: the auth and input guards read the same plans).
 */
@Module({
  imports: [RoutePlanModule],
  providers: [RateLimitPolicy],
  exports: [RateLimitPolicy],
})
export class RateLimitPolicyModule {}
