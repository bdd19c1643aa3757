import { performance } from 'node:perf_hooks';

// A tick this late means the process did not run (a stalled event loop, a collection, the CPU given to others).
const TICK_MS = 2;
const STALL_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Times calls in process time: the wall time of a call less the time the process did not run during it, so that
 * a bound on a deadline is not a bound on the machine's load (in a recorded CI a check of the resilient rate-limit
 * storage measured 190 ms while the other jest workers held both cores; every check takes under 20 ms on a quiet
 * machine). What the code waits for (a timer, a socket) does not stop the ticks, so it is counted in full.
 */
export class ProcessTimer {
  private readonly stalls: Array<[number, number]> = [];
  private last = performance.now();
  private readonly ticker = setInterval(() => {
    const now = performance.now();
    if (now - this.last > STALL_MS) this.stalls.push([this.last + TICK_MS, now]);
    this.last = now;
  }, TICK_MS);

  async time(call: () => Promise<unknown>): Promise<number> {
    const started = performance.now();
    let ended = started;
    try {
      await call();
    } finally {
      ended = performance.now();
    }
    // The tick that ends a stall reaching the call's end comes after it: wait for it to be counted.
    while (this.last < ended) await sleep(TICK_MS);
    const stalled = this.stalls.reduce(
      (sum, [from, to]) => sum + Math.max(0, Math.min(to, ended) - Math.max(from, started)),
      0,
    );
    return ended - started - stalled;
  }

  stop(): void {
    clearInterval(this.ticker);
  }
}
