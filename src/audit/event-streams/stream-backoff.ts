/** How long a stream keeps retrying before it is paused (docs/contract.md: 24 hours). */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The longest wait between two attempts, so a receiver that comes back is reached within the hour. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

export interface FailureState {
  failingSince: Date | null;
  failures: number;
}

export type AfterFailure =
  | { paused: false; failingSince: Date; failures: number; retryAt: Date }
  | { paused: true; failingSince: Date; failures: number };

/**
 * The stream's state after one more failed attempt at `now`: the next attempt after `baseMs`, doubled per
 * failure in a row (up to an hour); paused once the failures have lasted 24 hours.
 */
export function afterFailure(state: FailureState, now: Date, baseMs: number): AfterFailure {
  const failingSince = state.failingSince ?? now;
  const failures = state.failures + 1;
  if (now.getTime() - failingSince.getTime() >= RETRY_WINDOW_MS) return { paused: true, failingSince, failures };
  const delay = Math.min(baseMs * 2 ** Math.min(failures - 1, 30), MAX_RETRY_DELAY_MS);
  return { paused: false, failingSince, failures, retryAt: new Date(now.getTime() + delay) };
}
