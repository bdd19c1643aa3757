import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RateLimitPolicy } from './rate-limit.policy';

/** The route → group and limits table, shared by the throttler's options and the guard. */
@Module({
  imports: [DiscoveryModule],
  providers: [RateLimitPolicy],
  exports: [RateLimitPolicy],
})
export class RateLimitPolicyModule {}
