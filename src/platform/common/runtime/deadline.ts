/** A call that did not answer in time (a Redis call unless named); the work may still finish later. */
export class DeadlineError extends Error {
  constructor(
    readonly timeoutMs: number,
    what = 'Redis call',
  ) {
    super(`${what} exceeded ${timeoutMs} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * Rejects with `makeError()` when `work` has not settled within `timeoutMs`; `work` itself goes on.
 *
 * Timers run before I/O in an event-loop turn: when this process was busy (a burst of requests, a collection),
 * the timer fires while the answer already waits unread in the socket. setImmediate runs after the I/O phase, so
 * only a missing answer counts as a timeout, not our own lag; `makeError` is called only then, so it may also
 * act on the timeout (close the connection that did not answer).
 */
export function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  makeError: () => Error = () => new DeadlineError(timeoutMs),
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(makeError());
        }),
      timeoutMs,
    );
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
