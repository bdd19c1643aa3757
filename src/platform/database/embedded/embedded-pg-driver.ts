import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { PGlite, PGliteOptions, Results } from '@electric-sql/pglite';
import { ownerOnlyNodeFs } from './owner-only-node-fs';
import { DataDirLock } from './data-dir-lock';
import { inFirstLane } from '../query-lane';

type Release = (error?: unknown) => void;
type ConnectCallback = (error: Error | null, connection: EmbeddedConnection | null, release: Release) => void;

interface PgLikeResult {
  rows: unknown[];
  rowCount: number;
  command?: string;
  fields: Results['fields'];
}

const OID_INT8 = 20;
const POOL_CLOSED = 'The embedded database pool has been closed';

/**
 * The single PGlite backend behind one pool, opened lazily and shared by every checkout. It lives in
 * `<DATA_DIR>/db`, and DATA_DIR is locked so that a second process (a CLI run while the service is up) fails clearly instead of corrupting it.
 */
class EmbeddedBackend {
  private opening?: Promise<PGlite>;
  private lock?: DataDirLock;

  constructor(private readonly dataDir: string) {}

  open(): Promise<PGlite> {
    this.opening ??= (async () => {
      this.lock = DataDirLock.acquire(this.dataDir);
      try {
        // PGlite is published as ESM first; the dynamic import keeps this module loadable from CommonJS.
        const { PGlite } = await import('@electric-sql/pglite');
        const options: PGliteOptions = {
          fs: await ownerOnlyNodeFs(join(this.dataDir, 'db')),
          // node-postgres returns int8 as a string; match it so both databases give entities the same values.
          parsers: { [OID_INT8]: (value: string) => value },
        };
        return await PGlite.create(options);
      } catch (error) {
        this.lock.release();
        this.opening = undefined;
        throw error;
      }
    })();
    return this.opening;
  }

  async close(): Promise<void> {
    if (!this.opening) return;
    const db = await this.opening.catch(() => undefined);
    this.opening = undefined;
    try {
      await db?.close();
    } finally {
      this.lock?.release();
    }
  }
}

/**
 * What TypeORM's postgres driver calls on a checked-out connection. There is one PGlite session, so a
 * connection is a lease on it: every statement of a transaction runs on the session the lease holds.
 */
class EmbeddedConnection extends EventEmitter {
  constructor(private readonly db: PGlite) {
    super();
  }

  async query(sql: string, parameters?: unknown[]): Promise<PgLikeResult> {
    if (parameters && parameters.length > 0) return toPgResult(await this.db.query(sql, parameters));
    // Parameterless strings may hold several statements (migrations); the extended protocol refuses those.
    const results = await this.db.exec(sql);
    return toPgResult(results[results.length - 1]);
  }
}

function toPgResult(result: Results | undefined): PgLikeResult {
  if (!result) return { rows: [], rowCount: 0, fields: [] };
  const withTag = result as Results & { command?: string; rowCount?: number };
  return {
    rows: result.rows,
    rowCount: withTag.rowCount ?? result.affectedRows ?? result.rows.length,
    command: withTag.command,
    fields: result.fields,
  };
}

/** A caller queued for the session. */
interface Waiter {
  grant: () => void;
  fail: (error: Error) => void;
}

/**
 * A `pg.Pool` look-alike over one PGlite session. PGlite has exactly one backend, and handing it to two callers
 * at once interleaves their transactions (one's ROLLBACK undoes the other's work, or one's COMMIT keeps the
 * other's rolled-back row). So checkouts are serialized: a caller waits in a FIFO queue until the previous
 * lease is released, and gives up after `checkoutTimeoutMs` rather than hang forever when code holding a lease
 * asks for a second one. Two queues, in fact: callers in the first lane (query-lane.ts: logouts, logins, health)
 * are served before the others, so an overload of reads does not hold a logout behind all of them.
 *
 * PGlite runs each statement synchronously on this thread. A lease handed over in the same turn would let a long
 * queue drain without the event loop ever polling its sockets: under overload, no request would be read, shed
 * or accepted (libuv accepts one connection per turn) until the queue was empty. So the next lease is granted on
 * the loop's next turn.
 */
export class EmbeddedPool extends EventEmitter {
  private leased = false;
  /** The queues of the first lane and of the second. */
  private readonly waiting: [Waiter[], Waiter[]] = [[], []];
  private ended = false;

  constructor(
    private readonly backend: EmbeddedBackend,
    private readonly checkoutTimeoutMs: number,
  ) {
    super();
  }

  /** Leases still queued; for tests and metrics. */
  get waitingCount(): number {
    return this.waiting[0].length + this.waiting[1].length;
  }

  connect(callback: ConnectCallback): void {
    this.acquire().then(
      ({ connection, release }) => callback(null, connection, release),
      (error: Error) =>
        callback(error, null, () => {
          /* nothing was leased */
        }),
    );
  }

  /** Runs one statement on its own lease, as `pg.Pool#query` does. */
  async query(sql: string, parameters?: unknown[]): Promise<PgLikeResult> {
    const { connection, release } = await this.acquire();
    try {
      return await connection.query(sql, parameters);
    } finally {
      release();
    }
  }

  end(callback?: (error?: Error) => void): void {
    this.ended = true;
    // Callers still queued would otherwise wait out their whole timeout for a session that is gone.
    for (const queue of this.waiting) for (const waiter of queue.splice(0)) waiter.fail(new Error(POOL_CLOSED));
    this.backend.close().then(
      () => callback?.(),
      (error: Error) => callback?.(error),
    );
  }

  private async acquire(): Promise<{ connection: EmbeddedConnection; release: Release }> {
    if (this.ended) throw new Error(POOL_CLOSED);
    const db = await this.backend.open();
    await this.waitForTurn();
    let released = false;
    const release: Release = () => {
      if (released) return;
      released = true;
      this.handOver();
    };
    return { connection: new EmbeddedConnection(db), release };
  }

  private waitForTurn(): Promise<void> {
    if (!this.leased) {
      this.leased = true;
      return Promise.resolve();
    }
    const queue = this.waiting[inFirstLane() ? 0 : 1];
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        fail: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const index = queue.indexOf(waiter);
        if (index !== -1) queue.splice(index, 1);
        reject(new Error(`Timed out after ${this.checkoutTimeoutMs} ms waiting for the embedded database`));
      }, this.checkoutTimeoutMs);
      queue.push(waiter);
    });
  }

  /**
   * With callers waiting, the session stays leased until the loop's next turn and goes to whoever is first then.
   * With none, it is free at once: one request's statements one after the other pay no turn.
   */
  private handOver(): void {
    if (this.waitingCount === 0) this.leased = false;
    else setImmediate(this.grantNext);
  }

  private readonly grantNext = (): void => {
    const next = this.waiting[0].shift() ?? this.waiting[1].shift();
    if (next) next.grant();
    else this.leased = false;
  };
}

/**
 * The object TypeORM's `driver` option expects in place of the `pg` module: it only ever calls `new Pool()`.
 * Each driver owns one backend, so two data sources in one process (tests) never share a session.
 */
export function createEmbeddedPgDriver(dataDir: string, checkoutTimeoutMs: number): { Pool: new () => EmbeddedPool } {
  const backend = new EmbeddedBackend(dataDir);
  return {
    Pool: class extends EmbeddedPool {
      constructor() {
        super(backend, checkoutTimeoutMs);
      }
    },
  };
}
