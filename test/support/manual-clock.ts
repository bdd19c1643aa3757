import { Clock } from '../../src/platform/common/clock/clock';

/** A clock that only moves when told to; for tests of time-dependent rules. */
export class ManualClock extends Clock {
  private current: number;

  constructor(start: Date | string | number = Date.now()) {
    super();
    this.current = new Date(start).getTime();
  }

  override now(): Date {
    return new Date(this.current);
  }

  override nowMs(): number {
    return this.current;
  }

  set(at: Date | string | number): void {
    this.current = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
