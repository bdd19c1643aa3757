export { createStaffAuthClient, LoginError } from './client';
export type { LoginOptions, StaffAuthClient, StaffAuthClientOptions } from './client';
export { systemClock, type Clock } from './clock';
export { DEFAULT_CONCURRENCY } from './credential-gate';
export {
  parseStructuredList,
  readBucket,
  readConcurrency,
  retryAfterMs,
  type BucketInfo,
  type ConcurrencyInfo,
} from './rate-limit-headers';
export { RouteGroups } from './route-group';
export { RateLimitScheduler, type Permit } from './scheduler';
export type { LoginResult } from './token-session';
export type { ClientStats, RetryBudget } from './transport';
export type { components, operations, paths } from '../openapi';
