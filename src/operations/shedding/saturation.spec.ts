import { jest } from '@jest/globals';
import { EventLoopLag, LAG_SAMPLE_MS, LAG_WINDOW } from './event-loop-lag';
import { type LagSource, SaturationDetector } from './saturation';

class FakeLag implements LagSource {
  ms = 0;
  lagMs(): number {
    return this.ms;
  }
}

const ORDER = ['write', 'read', 'sign_in', 'revocation', 'health'] as const;
const shedNow = (detector: SaturationDetector) => ORDER.filter((priority) => detector.sheds(priority));

describe('the saturation detector', () => {
  it('requests in flight: writes go at 70 % of the bound, reads at 80 %, logins at 90 %, logout at 100 %, health never', () => {
    const detector = new SaturationDetector({ maxInFlight: 10, maxEventLoopDelayMs: 0 }, new FakeLag());
    const seen: string[][] = [];
    for (let inFlight = 0; inFlight <= 12; inFlight++) {
      seen.push(shedNow(detector));
      expect(detector.saturated()).toBe(inFlight >= 7);
      detector.enter();
    }
    expect(seen.slice(0, 7)).toEqual(Array(7).fill([]));
    expect(seen[7]).toEqual(['write']);
    expect(seen[8]).toEqual(['write', 'read']);
    expect(seen[9]).toEqual(['write', 'read', 'sign_in']);
    expect(seen[10]).toEqual(['write', 'read', 'sign_in', 'revocation']);
    expect(seen[12]).toEqual(['write', 'read', 'sign_in', 'revocation']);
  });

  it('a request that ends gives its place back; never below zero', () => {
    const detector = new SaturationDetector({ maxInFlight: 10, maxEventLoopDelayMs: 0 }, new FakeLag());
    for (let i = 0; i < 7; i++) detector.enter();
    expect(detector.sheds('write')).toBe(true);
    detector.leave();
    expect(detector.sheds('write')).toBe(false);
    for (let i = 0; i < 10; i++) detector.leave();
    expect(detector.requestsInFlight).toBe(0);
  });

  it('the event loop’s delay, by the same shares of its bound', () => {
    const lag = new FakeLag();
    const detector = new SaturationDetector({ maxInFlight: 0, maxEventLoopDelayMs: 100 }, lag);
    const at = (ms: number) => {
      lag.ms = ms;
      return shedNow(detector);
    };
    expect(at(69)).toEqual([]);
    expect(detector.saturated()).toBe(false);
    expect(at(70)).toEqual(['write']);
    expect(detector.saturated()).toBe(true);
    expect(at(85)).toEqual(['write', 'read']);
    expect(at(95)).toEqual(['write', 'read', 'sign_in']);
    expect(at(5000)).toEqual(['write', 'read', 'sign_in', 'revocation']);
  });

  it('a bound of 0 is off: nothing is shed however many requests or however late the loop', () => {
    const lag = new FakeLag();
    lag.ms = 60_000;
    const detector = new SaturationDetector({ maxInFlight: 0, maxEventLoopDelayMs: 0 }, lag);
    for (let i = 0; i < 100_000; i++) detector.enter();
    expect(detector.saturated()).toBe(false);
    expect(shedNow(detector)).toEqual([]);
  });

  it('either bound is enough: the worse of the two decides', () => {
    const lag = new FakeLag();
    const detector = new SaturationDetector({ maxInFlight: 10, maxEventLoopDelayMs: 100 }, lag);
    for (let i = 0; i < 8; i++) detector.enter();
    lag.ms = 95;
    expect(shedNow(detector)).toEqual(['write', 'read', 'sign_in']);
    lag.ms = 0;
    expect(shedNow(detector)).toEqual(['write', 'read']);
  });
});

describe('the event loop’s delay', () => {
  it('counts only a loop that stays late: the smallest of the last samples', () => {
    const lag = new EventLoopLag();
    // One long pause (an application starting, a large query): not saturation.
    lag.record(2000);
    expect(lag.lagMs()).toBe(0);
    lag.record(1);
    lag.record(0);
    expect(lag.lagMs()).toBe(0);
    // Every turn late, as under overload.
    for (let i = 0; i < LAG_WINDOW - 1; i++) lag.record(150);
    expect(lag.lagMs()).toBe(0);
    lag.record(120);
    expect(lag.lagMs()).toBe(120);
    lag.record(400);
    expect(lag.lagMs()).toBe(120);
    // Back to on time: one sample clears it.
    lag.record(0);
    expect(lag.lagMs()).toBe(0);
  });

  it('samples its timer with the clock it is given, and stops', () => {
    jest.useFakeTimers();
    try {
      let now = 0;
      const lag = new EventLoopLag(() => now);
      lag.start();
      // On time: the clock moves with the timer.
      for (let i = 0; i < LAG_WINDOW; i++) {
        now += LAG_SAMPLE_MS;
        jest.advanceTimersByTime(LAG_SAMPLE_MS);
      }
      expect(lag.lagMs()).toBe(0);
      // Each turn of the loop takes 90 ms more than the timer asked for.
      for (let i = 0; i < LAG_WINDOW; i++) {
        now += LAG_SAMPLE_MS + 90;
        jest.advanceTimersByTime(LAG_SAMPLE_MS);
      }
      expect(lag.lagMs()).toBe(90);
      lag.stop();
      now += 10_000;
      jest.advanceTimersByTime(1000);
      expect(lag.lagMs()).toBe(90);
    } finally {
      jest.useRealTimers();
    }
  });
});
