export { createStaffAuthClient, LoginError } from './client';
export type { LoginOptions, StaffAuthClient, StaffAuthClientOptions } from './client';
export { systemClock, type Clock } from './clock';
export { parseStructuredList, readBucket, retryAfterMs, type BucketInfo } from './rate-limit-headers';
export { RouteGroups } from './route-group';
export { RateLimitScheduler, type Permit } from './scheduler';
export type { LoginResult } from './token-session';
export type { ClientStats, RetryBudget } from './transport';
export type { components, operations, paths } from '../openapi';
