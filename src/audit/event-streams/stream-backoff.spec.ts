import { afterFailure, MAX_RETRY_DELAY_MS, RETRY_WINDOW_MS } from './stream-backoff';

describe('afterFailure', () => {
  const start = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number) => new Date(start.getTime() + ms);

  it('waits the base delay, doubled per failure in a row, never more than an hour', () => {
    let state = { failingSince: null as Date | null, failures: 0 };
    const delays: number[] = [];
    let now = start;
    for (let i = 0; i < 14; i++) {
      const next = afterFailure(state, now, 5000);
      if (next.paused) throw new Error('paused too early');
      delays.push(next.retryAt.getTime() - now.getTime());
      state = next;
      now = next.retryAt;
    }
    expect(delays.slice(0, 4)).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(Math.max(...delays)).toBe(MAX_RETRY_DELAY_MS);
    expect(state.failingSince).toEqual(start);
  });

  it('pauses at the first failure 24 hours after the first one, not before', () => {
    const failing = { failingSince: start, failures: 30 };
    expect(afterFailure(failing, at(RETRY_WINDOW_MS - 1), 5000).paused).toBe(false);
    expect(afterFailure(failing, at(RETRY_WINDOW_MS), 5000)).toEqual({
      paused: true,
      failingSince: start,
      failures: 31,
    });
  });
});
