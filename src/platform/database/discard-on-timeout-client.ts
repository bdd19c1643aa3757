import { Client } from 'pg';

const READ_TIMEOUT_MESSAGE = 'Query read timeout';

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * The `pg.Client` the pool creates. node-postgres answers a statement that outlives `query_timeout` with an
 * error but keeps the connection, statement still in flight. Back in the pool, the next borrower's statements
 * queue behind it, and when it was inside a transaction whose ROLLBACK never got out, they join that
 * transaction: the borrower's COMMIT then commits the rows of a transaction that failed. So a connection that
 * timed out is closed (the server rolls back what it had open) and the pool drops it on release.
 */
export class DiscardOnTimeoutClient extends Client {
  // Every call shape of pg's overloaded `query` goes through here unchanged, so its types are pg's, not ours.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as Callback;
      args[last] = (error: Error | null, result?: unknown) => {
        this.discardAfter(error);
        callback(error, result);
      };
    }
    const result = (Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    if (typeof (result as Promise<unknown> | undefined)?.then === 'function') {
      (result as Promise<unknown>).then(undefined, (error: Error) => this.discardAfter(error));
    }
    return result;
  }

  private discardAfter(error: Error | null): void {
    if (error?.message !== READ_TIMEOUT_MESSAGE) return;
    // With a statement outstanding, end() drops the socket instead of waiting for the server's goodbye.
    this.end().catch(() => undefined);
  }
}
