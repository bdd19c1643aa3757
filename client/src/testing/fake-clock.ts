import type { Clock } from '../clock';

/** Lets pending promise chains (fetch bodies, awaits) run before time moves on. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

interface Sleeper {
  at: number;
  wake: () => void;
}

/** A clock that moves only when a test advances it; sleeps wake in order of their due time. */
export class FakeClock implements Clock {
  private time: number;
  private sleepers: Sleeper[] = [];

  constructor(start = Date.parse('2026-11-10T03:00:00Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        at: this.time + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  /** Moves time forward by `ms`, waking each sleeper at its own time. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      const next = this.sleepers.reduce<Sleeper | undefined>((a, b) => (!a || b.at < a.at ? b : a), undefined);
      if (!next || next.at > end) break;
      this.time = Math.max(this.time, next.at);
      this.sleepers = this.sleepers.filter((other) => other !== next);
      next.wake();
      await settle();
    }
    this.time = end;
    await settle();
  }

  /** Advances until `done` settles (at most `limitMs`), in steps of `stepMs`; the time it took. */
  async runUntil<T>(done: Promise<T>, limitMs = 600_000, stepMs = 10): Promise<{ value: T; tookMs: number }> {
    const start = this.time;
    let finished = false;
    let value!: T;
    let failure: unknown;
    let failed = false;
    done.then(
      (result) => ((finished = true), (value = result)),
      (error) => ((finished = failed = true), (failure = error)),
    );
    while (!finished && this.time - start < limitMs) await this.advance(stepMs);
    if (failed) throw failure;
    if (!finished) throw new Error(`not done after ${limitMs} ms of fake time`);
    return { value, tookMs: this.time - start };
  }
}
