import { DeadlineError, withDeadline } from '../common/runtime/deadline';
import { CircuitBreaker } from './circuit-breaker';

class CapturingLogger {
  readonly events: unknown[] = [];
  warn(obj: object): void {
    this.events.push((obj as { event?: unknown }).event);
  }
  info(obj: object): void {
    this.events.push((obj as { event?: unknown }).event);
  }
}

describe('CircuitBreaker', () => {
  let now = 0;
  const slow = () => Promise.reject(new DeadlineError(75));
  const refused = () => Promise.reject(new Error('Stream is not writeable'));
  const fine = () => Promise.resolve('redis');
  const fallback = () => 'memory';

  beforeEach(() => (now = 0));

  it('does not open on one slow reply, even one that every call in flight ran into', async () => {
    const log = new CapturingLogger();
    const breaker = new CircuitBreaker(log, { now: () => now });
    // A 150 ms stall: fifty calls in flight miss their deadline within that stretch.
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        now = 75 + i * 3;
        return breaker.run(slow, fallback);
      }),
    );
    expect(answers).toEqual(Array(50).fill('memory'));
    expect(breaker.state).toBe('closed');
    now = 240;
    expect(await breaker.run(fine, fallback)).toBe('redis');
    expect(breaker.state).toBe('closed');
    expect(log.events).toEqual([]);
  });

  it('opens once missed deadlines have gone on for the tolerance, and at the threshold for refusals', async () => {
    const log = new CapturingLogger();
    const breaker = new CircuitBreaker(log, { now: () => now, slowToleranceMs: 200 });
    for (const at of [0, 100, 199]) {
      now = at;
      await breaker.run(slow, fallback);
    }
    expect(breaker.state).toBe('closed');
    now = 200;
    await breaker.run(slow, fallback);
    expect(breaker.state).toBe('open');

    const refusing = new CircuitBreaker(log, { now: () => 0 });
    for (let i = 0; i < 3; i++) await refusing.run(refused, fallback);
    expect(refusing.state).toBe('open');
    // Open: no call reaches Redis until the cool-down is over.
    let calls = 0;
    await refusing.run(() => (calls++, fine()), fallback);
    expect(calls).toBe(0);
    expect(refusing.fallbackCount).toBe(4);
    expect(log.events).toEqual(['rate_limit_breaker_open', 'rate_limit_breaker_open']);
  });

  it('withDeadline rejects with a DeadlineError in time and leaves no timer behind', async () => {
    const started = performance.now();
    await expect(withDeadline(new Promise(() => undefined), 30)).rejects.toBeInstanceOf(DeadlineError);
    expect(performance.now() - started).toBeLessThan(200);
    await expect(withDeadline(Promise.resolve(1), 30)).resolves.toBe(1);
  });
});
