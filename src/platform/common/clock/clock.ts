/**
 * The one source of "now" for every rule that depends on time (token expiry, session age, rate-limit buckets).
 * Production uses {@link SystemClock}; tests inject a clock they can move.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  override now(): Date {
    return new Date();
  }

  override nowMs(): number {
    return Date.now();
  }
}
