import { Client, type ClientConfig } from 'pg';
import { withDeadline } from '../common/runtime/deadline';

const READ_TIMEOUT_MESSAGE = 'Query read timeout';

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * The `pg.Client` the pool creates, with the read timeout (`query_timeout`) kept here instead of in node-postgres,
 * for two reasons:
 * - node-postgres answers a statement that outlives it with an error but keeps the connection, statement still in
 *   flight. Back in the pool, the next borrower's statements queue behind it, and when it was inside a transaction
 *   whose ROLLBACK never got out, they join that transaction: the borrower's COMMIT then commits the rows of a
 *   transaction that failed. So a connection that timed out is closed (the server rolls back what it had open)
 *   and the pool drops it on release.
 * - Its timer decides before the process reads its sockets: after the event loop stalled (a long collection, the
 *   CPU given to other processes), an answer that had arrived in time was failed as late. A recorded CI failed a
 *   start's BEGIN so. Here the deadline is judged after the I/O that arrived by then has been read (withDeadline).
 */
export class DiscardOnTimeoutClient extends Client {
  private readonly readTimeoutMs: number;

  constructor(config: ClientConfig & { query_timeout?: number }) {
    const { query_timeout: readTimeoutMs, ...rest } = config;
    super(rest);
    this.readTimeoutMs = readTimeoutMs ?? 0;
  }

  // Every call shape of pg's overloaded `query` goes through here, so its types are pg's, not ours.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const query = Client.prototype.query as (...a: unknown[]) => unknown;
    // A query object (a cursor, a stream) reads in several round trips: no single answer to wait for.
    if (this.readTimeoutMs <= 0 || typeof args[0]?.submit === 'function') return query.apply(this, args);
    const callback = typeof args[args.length - 1] === 'function' ? (args.pop() as Callback) : undefined;
    const answered = withDeadline(query.apply(this, args) as Promise<unknown>, this.readTimeoutMs, () => {
      // With a statement outstanding, end() drops the socket instead of waiting for the server's goodbye.
      this.end().catch(() => undefined);
      return new Error(READ_TIMEOUT_MESSAGE);
    });
    if (!callback) return answered;
    answered.then(
      (result) => callback(null, result),
      (error: Error) => callback(error),
    );
    return undefined;
  }
}
