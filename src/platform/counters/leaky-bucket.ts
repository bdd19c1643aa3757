import type { ThrottlerStorageRecord } from './rate-limit-storage';

/**
 * The leaky bucket of docs/contract.md ("Rate limiting"), computed as the generic cell rate algorithm (GCRA).
 *
 * A bucket holds at most `capacity` requests and drains continuously, `capacity` per `periodMs`; each admitted
 * request adds one. Its whole state is one instant, the "theoretical arrival time" (TAT): the moment the bucket
 * would be empty again. The level at `now` is `(TAT - now) / interval` requests, `interval = periodMs /
 * capacity` being the time one request takes to drain. A request fits when the level after it is at most the
 * capacity; a refused request changes nothing. Memory and Redis (the same arithmetic in Lua, on the server's
 * clock) both reduce a decision to "admitted, and the level in ms after it", which {@link bucketRecord} turns
 * into the throttler's record; so both storages answer with the same numbers.
 */

// Float slack, 1 µs: limits such as 7 per 3000 ms give intervals that do not add up exactly (7 × 428.57… ≠
// 3000), and Redis stores the TAT to the microsecond.
export const EPSILON_MS = 0.001;

/** The time one request takes to drain, in ms. */
export const drainInterval = (periodMs: number, capacity: number): number => periodMs / capacity;

/**
 * A bucket's backlog in ms at `nowMs`, from the instant `untilMs` it is empty again. A backlog longer than a
 * full bucket cannot arise while time moves forward; it means the clock was set back (an NTP step, a test's
 * clock), and the bucket starts afresh rather than stay refused for as long as the clock jumped.
 */
export function backlog(untilMs: number, nowMs: number, periodMs: number): number {
  const level = untilMs - nowMs;
  return level > 0 && level <= periodMs + EPSILON_MS ? level : 0;
}

/**
 * One decision: `levelMs` is the bucket's backlog in ms at `now` (`max(0, TAT - now)`). Returns whether the
 * request is admitted and the backlog after it (unchanged when refused). A request of `cost` takes that many
 * slots at once: all of them fit, or none is taken.
 */
export function decide(
  levelMs: number,
  periodMs: number,
  capacity: number,
  cost = 1,
): { admitted: boolean; levelMs: number } {
  const after = levelMs + drainInterval(periodMs, capacity) * cost;
  return after <= periodMs + EPSILON_MS ? { admitted: true, levelMs: after } : { admitted: false, levelMs };
}

/**
 * The throttler's record for a decision, in the guard's units (whole seconds, rounded up):
 * - `totalHits`: the level in whole requests, rounded up, so `capacity - totalHits` is how many more requests
 *   would be admitted at once right now (X-Rate-Limit-Remaining);
 * - `timeToExpire`: seconds until the bucket is empty;
 * - `isBlocked`: the request was refused; `timeToBlockExpire` then says when the next one (of `cost` slots)
 *   fits (Retry-After, at least 1), 0 otherwise.
 */
export function bucketRecord(
  admitted: boolean,
  levelMs: number,
  periodMs: number,
  capacity: number,
  cost = 1,
): ThrottlerStorageRecord {
  const interval = drainInterval(periodMs, capacity);
  const level = levelMs > EPSILON_MS ? Math.ceil((levelMs - EPSILON_MS) / interval) : 0;
  let timeToBlockExpire = 0;
  if (!admitted) timeToBlockExpire = Math.max(1, Math.ceil((levelMs + interval * cost - periodMs - EPSILON_MS) / 1000));
  return {
    totalHits: Math.min(level, capacity),
    timeToExpire: levelMs > EPSILON_MS ? Math.ceil((levelMs - EPSILON_MS) / 1000) : 0,
    isBlocked: !admitted,
    timeToBlockExpire,
  };
}
