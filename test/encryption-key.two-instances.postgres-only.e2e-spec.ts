import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { TotpSecretBox } from '../src/platform/keys/secret-boxes';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/**
 * docs/contract.md "Other systems plug in": setting ENCRYPTION_KEY re-encrypts what is stored, at start, once,
 * whichever instance gets there. Two instances on one PostgreSQL database (the embedded database admits one
 * process, so this is PostgreSQL's only); the single-instance cases are in encryption-key.e2e-spec.ts.
 */
describe('ENCRYPTION_KEY set on two instances starting together', () => {
  let database: ProvisionedDatabase;
  const clock = new ManualClock('2026-11-25T09:00:00Z');

  beforeAll(async () => {
    database = await provisionDatabase();
  });
  afterAll(() => database?.drop());

  it('two instances starting together re-encrypt 1,200 secrets between them, each exactly once', async () => {
    const plains = Array.from({ length: 1200 }, (_, i) => `SECRET${String(i).padStart(6, '0')}AAAAAAAAAAAAAAAAAAAA`);
    const before = await startTestApp({ database, clock });
    try {
      const box = before.app.get(TotpSecretBox);
      await before.app.get(DataSource).query(
        `INSERT INTO employee (email, name, password_hash, totp_secret)
         SELECT 'many' || n || '@example.test', 'Many', 'x', s FROM unnest($1::text[]) WITH ORDINALITY AS u(s, n)`,
        [plains.map((plain) => box.seal(plain))],
      );
    } finally {
      await before.close();
    }
    const [a, b] = await Promise.all([
      startTestApp({ database, clock, env: { ENCRYPTION_KEY } }),
      startTestApp({ database, clock, env: { ENCRYPTION_KEY } }),
    ]);
    try {
      const rows: Array<{ email: string; totp_secret: string }> = await a.app
        .get(DataSource)
        .query(`SELECT email, totp_secret FROM employee WHERE email LIKE 'many%' ORDER BY id`);
      const newBox = a.app.get(TotpSecretBox);
      expect(rows.filter((row) => !row.totp_secret.startsWith(newBox.currentPrefix))).toEqual([]);
      expect(rows.map((row) => newBox.open(row.totp_secret)?.plain)).toEqual(plains);
      const counted = (app: TestApp) =>
        [...app.logs.text.matchAll(/"resealed":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
      expect(counted(a) + counted(b)).toBe(1200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a start behind a table lock held past the request query timeout waits for it, and starts', async () => {
    const holder = new Client({ connectionString: database.url });
    // Its own session: pg_stat_activity holds still for the length of a transaction.
    const watcher = new Client({ connectionString: database.url });
    await holder.connect();
    await watcher.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE employee IN ACCESS EXCLUSIVE MODE');
      const timeoutMs = 100;
      const starting = startTestApp({ database, clock, env: { DATABASE_QUERY_TIMEOUT_MS: String(timeoutMs) } });
      let settled = false;
      const outcome = starting.then(
        (app) => ({ app }),
        (error: Error) => ({ error }),
      );
      void outcome.then(() => (settled = true));
      // The start's resealing is seen queued behind the lock, then left there well past the request bound.
      for (;;) {
        const { rows } = await watcher.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (rows[0].waiting > 0 || settled) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, timeoutMs * 5));
      await holder.query('COMMIT');
      const started = await outcome;
      expect('error' in started ? started.error.message : 'started').toBe('started');
      if ('app' in started) await started.app.close();
    } finally {
      await holder.end();
      await watcher.end();
    }
  });
});
