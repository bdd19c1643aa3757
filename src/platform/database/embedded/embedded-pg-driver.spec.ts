import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { seedEmbeddedCluster } from '../../../../test/support/embedded-cluster';
import { isDatabaseUnavailable } from '../../common/errors/database-errors';
import { DataDirInUseError } from './data-dir-lock';
import { createEmbeddedPgDriver, type EmbeddedPool } from './embedded-pg-driver';

const CHECKOUT_TIMEOUT_MS = 300;

interface Lease {
  connection: { query(sql: string, parameters?: unknown[]): Promise<unknown> };
  release: () => void;
}

function checkout(pool: EmbeddedPool): Promise<Lease> {
  return new Promise((resolve, reject) =>
    pool.connect((error, connection, release) =>
      error ? reject(error) : resolve({ connection: connection!, release }),
    ),
  );
}

function end(pool: EmbeddedPool): Promise<void> {
  return new Promise((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
}

/** Lets every queued callback and timer that is due run, so anything that could have been granted would be. */
const settle = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EmbeddedPool (PGlite behind a pg.Pool look-alike)', () => {
  let dataDir: string;
  let pool: EmbeddedPool;
  let ended = false;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-embedded-driver-'));
    // The pool, not PGlite's initdb, is under test: an initialized cluster is copied in (seconds saved per run).
    await seedEmbeddedCluster(dataDir);
    pool = new (createEmbeddedPgDriver(dataDir, CHECKOUT_TIMEOUT_MS).Pool)();
    await pool.query('CREATE TABLE item (id int8 PRIMARY KEY, label text NOT NULL)');
  }, 60_000);

  afterAll(async () => {
    try {
      if (pool && !ended) await end(pool);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  beforeEach(async () => {
    await pool.query('DELETE FROM item');
    await pool.query(`INSERT INTO item (id, label) VALUES (1, 'a'), (2, 'a'), (3, 'b')`);
  });

  it('leases the one session to one caller at a time, in the order they asked', async () => {
    const first = await checkout(pool);
    const granted: string[] = [];
    const second = checkout(pool).then((lease) => (granted.push('second'), lease));
    const third = checkout(pool).then((lease) => (granted.push('third'), lease));
    await settle();
    expect(granted).toEqual([]);
    expect(pool.waitingCount).toBe(2);

    first.release();
    const secondLease = await second;
    await settle();
    expect(granted).toEqual(['second']);

    secondLease.release();
    (await third).release();
    expect(granted).toEqual(['second', 'third']);
    expect(pool.waitingCount).toBe(0);
  });

  it('hands a queued session over on the loop’s next turn: the loop turns between two statements', async () => {
    const first = await checkout(pool);
    const events: string[] = [];
    const queued = Array.from({ length: 5 }, (_, index) =>
      pool.query('SELECT $1::int AS n', [index]).then(() => events.push(`statement ${index}`)),
    );
    await settle();
    first.release();
    setImmediate(() => events.push('next turn'));
    await Promise.all(queued);
    // PGlite runs on this thread: handed over in the same turn, the five would run before the loop turned once.
    expect(events).toEqual(['statement 0', 'next turn', 'statement 1', 'statement 2', 'statement 3', 'statement 4']);
  });

  it('holds a one-statement query behind a lease, so it never runs inside another caller’s transaction', async () => {
    const lease = await checkout(pool);
    await lease.connection.query('BEGIN');
    await lease.connection.query(`INSERT INTO item (id, label) VALUES (4, 'uncommitted')`);
    const counted = pool.query('SELECT count(*) AS n FROM item');
    await settle();
    await lease.connection.query('ROLLBACK');
    lease.release();
    expect(((await counted).rows as Array<{ n: string }>)[0].n).toBe('3');
  });

  it('gives up on a waiting checkout after checkoutTimeoutMs with an error the API answers 503 for', async () => {
    const holder = await checkout(pool);
    try {
      const started = performance.now();
      const error = await checkout(pool).then(
        () => {
          throw new Error('the checkout should have timed out');
        },
        (failure: Error) => failure,
      );
      const waited = performance.now() - started;
      expect(error.message).toBe(`Timed out after ${CHECKOUT_TIMEOUT_MS} ms waiting for the embedded database`);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(CHECKOUT_TIMEOUT_MS - 5);
      expect(waited).toBeLessThan(CHECKOUT_TIMEOUT_MS + 500);
      expect(pool.waitingCount).toBe(0);
    } finally {
      holder.release();
    }
    // The timed-out waiter left the queue: the next caller is served at once.
    const next = await checkout(pool);
    next.release();
  });

  it('ignores a second release of the same lease', async () => {
    const first = await checkout(pool);
    first.release();
    const second = await checkout(pool);
    first.release();
    const third = checkout(pool);
    await settle();
    expect(pool.waitingCount).toBe(1);
    second.release();
    (await third).release();
  });

  it.each([
    ['with parameters', 'UPDATE item SET label = $1 WHERE label = $2', ['c', 'a'], 'DELETE FROM item WHERE id=$1', [3]],
    ['without parameters', `UPDATE item SET label = 'c' WHERE label = 'a'`, [], 'DELETE FROM item WHERE id = 3', []],
  ])('reports rowCount and command of UPDATE and DELETE %s, as node-postgres does', async (_how, ...statements) => {
    const [update, updateParameters, remove, removeParameters] = statements as [string, unknown[], string, unknown[]];
    expect(await pool.query(update, updateParameters)).toMatchObject({ command: 'UPDATE', rowCount: 2 });
    expect(await pool.query(remove, removeParameters)).toMatchObject({ command: 'DELETE', rowCount: 1 });
    expect(await pool.query(`DELETE FROM item WHERE id = 99`)).toMatchObject({ command: 'DELETE', rowCount: 0 });
  });

  it('reports the last statement of a multi-statement string on its own, not summed with the others', async () => {
    const result = await pool.query(`UPDATE item SET label = 'd'; DELETE FROM item WHERE id = 1`);
    expect(result).toMatchObject({ command: 'DELETE', rowCount: 1 });
  });

  it('returns int8 as a string, like node-postgres, with and without parameters', async () => {
    const big = '9007199254740993';
    const viaParameters = await pool.query('SELECT $1::int8 AS big, count(*) AS n FROM item', [big]);
    expect(viaParameters.rows).toEqual([{ big, n: '3' }]);
    const viaText = await pool.query(`SELECT ${big}::int8 AS big, count(*) AS n FROM item`);
    expect(viaText.rows).toEqual([{ big, n: '3' }]);
    expect((await pool.query('SELECT id FROM item ORDER BY id')).rows).toEqual([{ id: '1' }, { id: '2' }, { id: '3' }]);
  });

  it('end() closes the database and frees its folder for the next process (last: it ends the pool)', async () => {
    const lockFile = join(dataDir, '.embedded-db.lock');
    expect(existsSync(lockFile)).toBe(true);
    const rival = new (createEmbeddedPgDriver(dataDir, CHECKOUT_TIMEOUT_MS).Pool)();
    await expect(rival.query('SELECT 1')).rejects.toBeInstanceOf(DataDirInUseError);

    // A caller still queued when the pool ends is told at once, not after its whole checkout timeout.
    const holder = await checkout(pool);
    const queued = checkout(pool).then(
      () => 'granted',
      (error: Error) => error.message,
    );
    await settle();
    const started = performance.now();
    const ending = end(pool);
    expect(await queued).toBe('The embedded database pool has been closed');
    expect(performance.now() - started).toBeLessThan(CHECKOUT_TIMEOUT_MS / 2);
    holder.release();
    await ending;
    ended = true;
    expect(existsSync(lockFile)).toBe(false);
    await expect(checkout(pool)).rejects.toThrow('The embedded database pool has been closed');

    // Reopened through TypeORM, which reads `affected` from rowCount: the data survived and the counts are right.
    const driver = createEmbeddedPgDriver(dataDir, CHECKOUT_TIMEOUT_MS);
    const dataSource = new DataSource({ type: 'postgres', driver });
    await dataSource.initialize();
    try {
      const updated = await dataSource
        .createQueryBuilder()
        .update('item')
        .set({ label: 'z' })
        .where('label = :label', { label: 'a' })
        .execute();
      expect(updated.affected).toBe(2);
      const deleted = await dataSource
        .createQueryBuilder()
        .delete()
        .from('item')
        .where('id = :id', { id: 3 })
        .execute();
      expect(deleted.affected).toBe(1);
      expect(await dataSource.query('SELECT id, label FROM item ORDER BY id')).toEqual([
        { id: '1', label: 'z' },
        { id: '2', label: 'z' },
      ]);
    } finally {
      await dataSource.destroy();
    }
    expect(existsSync(lockFile)).toBe(false);
  }, 30_000);
});
