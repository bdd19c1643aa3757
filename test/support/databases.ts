import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export type TestDatabase = 'embedded' | 'postgres';

/** The server the PostgreSQL project creates its throw-away databases on. */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A PostgreSQL database made and migrated once per run (postgres-global-setup.ts), the template of each test's. */
export const POSTGRES_TEMPLATE_DATABASE = `staff_auth_template_${(process.env.JEST_RUN_ID ?? 'local').replace(/\W/g, '_')}`;

/**
 * The prefix of this run's throw-away PostgreSQL databases. They are dropped together when the run ends
 * (postgres-global-teardown.ts), not one by one as files finish: each DROP DATABASE forces an immediate
 * checkpoint, which on this 2-core machine stalled the server for over a second while other files were
 * connecting (their pools gave up after the service's 1.5 s and answered 503).
 */
export const POSTGRES_TEST_DATABASE_PREFIX = `staff_auth_test_${(process.env.JEST_RUN_ID ?? 'local').replace(/\W/g, '_')}_`;

/** A PGlite folder made and migrated once per run (embedded-global-setup.ts), copied by each test. */
export const EMBEDDED_TEMPLATE_DIR = join(tmpdir(), `staff-auth-pglite-template-${process.env.JEST_RUN_ID ?? 'local'}`);

export function currentTestDatabase(): TestDatabase {
  const target = process.env.TEST_DB;
  if (target !== 'embedded' && target !== 'postgres') {
    throw new Error('TEST_DB must be embedded or postgres (set by the jest project)');
  }
  return target;
}

/** A database of its own for one test file: the environment that points at it, and how to throw it away. */
export interface ProvisionedDatabase {
  env: Record<string, string>;
  url?: string;
  dataDir: string;
  drop(): Promise<void>;
}

export interface ProvisionOptions {
  /**
   * An empty database, for the tests of the migrations themselves. Otherwise it starts as a copy of the run's
   * migrated template, which is what a first start would have made: a start on it finds nothing pending.
   */
  empty?: boolean;
}

export async function provisionDatabase(
  target: TestDatabase = currentTestDatabase(),
  options: ProvisionOptions = {},
): Promise<ProvisionedDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-test-'));
  // Apps on one database share Redis keys and channels; apps on different databases never see each other's.
  const redisKeyPrefix = `test-${randomBytes(4).toString('hex')}:`;
  if (target === 'embedded') {
    if (!options.empty && existsSync(EMBEDDED_TEMPLATE_DIR))
      cpSync(EMBEDDED_TEMPLATE_DIR, join(dataDir, 'db'), { recursive: true });
    return {
      env: { DATA_DIR: dataDir, REDIS_KEY_PREFIX: redisKeyPrefix },
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `${POSTGRES_TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  // CREATE DATABASE … TEMPLATE copies the migrated files in a few milliseconds, where running the migrations on
  // an empty database took about a second per file on a loaded 2-core machine.
  const template = options.empty ? '' : ` TEMPLATE "${POSTGRES_TEMPLATE_DATABASE}"`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"${template}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir, REDIS_KEY_PREFIX: redisKeyPrefix },
    url: url.toString(),
    dataDir,
    // Its sessions are ended now (what the file opened is closed); the database itself goes with the run's.
    drop: async () => {
      await withAdminClient((client) =>
        client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]),
      );
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
