import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/data-source';
import { MIGRATION_LOCK_KEY, runPendingMigrations } from '../src/platform/database/migration-runner';
import { ALL_MIGRATION_NAMES } from './support/all-migrations';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { TEST_ENV } from './support/test-app';

const MIGRATE_ENTRY = resolve(__dirname, '..', 'dist', 'src', 'migrate.js');
const MIGRATION_NAMES = ALL_MIGRATION_NAMES;
const CHILD_LIMIT_MS = 15_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `node dist/src/migrate.js` with only the given settings, from an empty folder (no stray .env). */
function runMigrateCli(env: Record<string, string>): Promise<Run> {
  const cwd = mkdtempSync(join(tmpdir(), 'staff-auth-migrate-'));
  const started = performance.now();
  return new Promise<Run>((done) => {
    execFile(
      process.execPath,
      [MIGRATE_ENTRY],
      { cwd, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env }, timeout: CHILD_LIMIT_MS },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  }).finally(() => rmSync(cwd, { recursive: true, force: true }));
}

function dataSourceFor(database: ProvisionedDatabase): DataSource {
  return new DataSource(dataSourceOptions(loadConfig({ ...TEST_ENV, ...database.env })));
}

/** Other sessions of this database that have asked for an advisory lock (waiting in it, or asking again). */
async function lockSeekers(client: Client): Promise<number> {
  const { rows } = await client.query<{ seekers: number }>(
    `SELECT count(*)::int AS seekers FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE '%advisory%lock%'`,
  );
  return rows[0].seekers;
}

async function waitFor(condition: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Holds the migration lock from outside, lets `starters` queue up behind it, keeps it `holdMs` longer, then lets
 * them all go at once; returns what each applied.
 */
async function raceBehindLock(database: ProvisionedDatabase, sources: DataSource[], holdMs: number) {
  const holder = new Client({ connectionString: database.url, connectionTimeoutMillis: 3000 });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const runs = sources.map((source) => runPendingMigrations(source));
    // Nothing may reject while it waits; collect outcomes instead of letting one fail the test early.
    const settled = Promise.allSettled(runs);
    await waitFor(async () => (await lockSeekers(holder)) === sources.length, 5000, 'every runner to ask for the lock');
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    return await settled;
  } finally {
    await holder.end();
  }
}

describe('migrations on PostgreSQL', () => {
  let database: ProvisionedDatabase | undefined;
  let sources: DataSource[] = [];

  afterEach(async () => {
    await Promise.allSettled(sources.filter((source) => source.isInitialized).map((source) => source.destroy()));
    sources = [];
    await database?.drop();
    database = undefined;
  });

  async function threeSources(): Promise<DataSource[]> {
    database = await provisionDatabase('postgres', { empty: true });
    sources = [dataSourceFor(database), dataSourceFor(database), dataSourceFor(database)];
    await Promise.all(sources.map((source) => source.initialize()));
    return sources;
  }

  async function appliedRows(source: DataSource): Promise<string[]> {
    const rows = (await source.query('SELECT name FROM schema_migrations ORDER BY id')) as Array<{ name: string }>;
    return rows.map((row) => row.name);
  }

  it('applies every migration exactly once when three instances migrate at the same time', async () => {
    const [first, second, third] = await threeSources();
    const outcomes = await Promise.allSettled([first, second, third].map((source) => runPendingMigrations(source)));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const applied = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
    expect(applied.map((migration) => migration.name).sort()).toEqual([...MIGRATION_NAMES].sort());
    expect(await appliedRows(first)).toEqual(MIGRATION_NAMES);
    expect(await runPendingMigrations(second)).toEqual([]);
    expect(await appliedRows(third)).toHaveLength(MIGRATION_NAMES.length);
  });

  it('lets instances queued behind the lock all go at once, and still applies each migration once', async () => {
    const started = await threeSources();
    const outcomes = await raceBehindLock(database!, started, 0);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const applied = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
    expect(applied.map((migration) => migration.name)).toEqual(MIGRATION_NAMES);
    expect(await appliedRows(started[0])).toEqual(MIGRATION_NAMES);
  });

  it('waits for another instance that migrates for longer than one query may take', async () => {
    const started = await threeSources();
    const { databaseQueryTimeoutMs } = loadConfig({ ...TEST_ENV, ...database!.env });
    const outcomes = await raceBehindLock(database!, started, databaseQueryTimeoutMs + 500);

    expect(outcomes).toEqual([
      { status: 'fulfilled', value: expect.any(Array) },
      { status: 'fulfilled', value: expect.any(Array) },
      { status: 'fulfilled', value: expect.any(Array) },
    ]);
    expect(await appliedRows(started[0])).toEqual(MIGRATION_NAMES);
  });

  describe('the compiled `migrate` command', () => {
    beforeAll(() => {
      if (!existsSync(MIGRATE_ENTRY)) {
        throw new Error(`${MIGRATE_ENTRY} is missing: run "npm run -s build" first (npm run test:e2e does).`);
      }
    });

    it('applies the migrations of a fresh database, then nothing on a second run', async () => {
      database = await provisionDatabase('postgres', { empty: true });
      const first = await runMigrateCli({ DATABASE_URL: database.url! });
      expect(first).toMatchObject({ code: 0, stderr: '' });
      // A stale build lists other migrations than the source: rebuild (npm run -s build).
      expect(first.stdout).toBe(`${JSON.stringify({ applied: MIGRATION_NAMES })}\n`);

      const second = await runMigrateCli({ DATABASE_URL: database.url! });
      expect(second).toMatchObject({ code: 0, stdout: '{"applied":[]}\n', stderr: '' });
    });

    it('fails within seconds with one line on stderr when the database cannot be reached', async () => {
      const run = await runMigrateCli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
      expect(run.code).not.toBe(0);
      expect(run.code).not.toBeNull();
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: .+\n$/);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.ms).toBeLessThan(5000);
    });
  });
});
