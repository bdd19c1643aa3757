import type { LagSource } from './saturation';

/** How often the loop's delay is sampled. */
export const LAG_SAMPLE_MS = 20;
/** Consecutive samples that must all be late: one long pause (a start, a large query) is not saturation. */
export const LAG_WINDOW = 3;

/**
 * The event loop's delay: a timer due every {@link LAG_SAMPLE_MS} notes how late it ran. The delay reported is the
 * smallest of the last {@link LAG_WINDOW} samples, so only a loop that stays late (each turn slow, as under
 * overload) counts as saturated; a single pause of any length is over by the next sample. The timer is unref'd:
 * it never keeps the process alive.
 */
export class EventLoopLag implements LagSource {
  private readonly samples: number[] = new Array<number>(LAG_WINDOW).fill(0);
  private next = 0;
  private current = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  lagMs(): number {
    return this.current;
  }

  /** One sample: the timer ran `lateByMs` after it was due. */
  record(lateByMs: number): void {
    this.samples[this.next] = Math.max(0, lateByMs);
    this.next = (this.next + 1) % LAG_WINDOW;
    this.current = Math.min(...this.samples);
  }

  start(): void {
    if (this.timer !== undefined) return;
    let due = this.now() + LAG_SAMPLE_MS;
    const tick = () => {
      const now = this.now();
      this.record(now - due);
      due = now + LAG_SAMPLE_MS;
      this.timer = setTimeout(tick, LAG_SAMPLE_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, LAG_SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
