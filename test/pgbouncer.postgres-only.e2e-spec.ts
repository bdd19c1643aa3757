import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/data-source';
import { runPendingMigrations } from '../src/platform/database/migration-runner';
import { ALL_MIGRATION_NAMES } from './support/all-migrations';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { call, createFleetAccount, freshIp, logIn, type Session, sleep, startFleet } from './support/fleet';
import { PgBouncer } from './support/pgbouncer';
import { killChildren, requireBuild, type RunningService } from './support/processes';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

const appliedNames = (url: string) =>
  query<{ name: string }>(url, 'SELECT name FROM schema_migrations ORDER BY id').then((rows) =>
    rows.map((row) => row.name),
  );
/** Advisory locks held by anyone on the database server (a lock left on a pooled connection shows here). */
const advisoryLocks = (url: string) =>
  query<{ n: number }>(
    url,
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
      WHERE l.locktype = 'advisory' AND d.datname = current_database()`,
  ).then(([row]) => row.n);

/**
 * PgBouncer in transaction mode with server_round_robin = 1 in front of PostgreSQL (a pooler of this test's
 * own): requests through DATABASE_URL, migrations and LISTEN through DATABASE_DIRECT_URL; migrations applied
 * once by instances that start together, no advisory lock left anywhere, a logout seen by the other instances.
 */
describe('behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  const databases: ProvisionedDatabase[] = [];

  beforeAll(async () => {
    requireBuild();
    bouncer = await PgBouncer.start('postgres://postgres@127.0.0.1:5432/test', 3);
  });

  afterAll(async () => {
    await killChildren();
    await bouncer?.stop();
    for (const database of databases) await database.drop();
  });

  it('migrates once with three runners through the pooler alone, and leaves no lock held', async () => {
    const database = await provisionDatabase('postgres', { empty: true });
    databases.push(database);
    const env = { ...database.env, NODE_ENV: 'test', DATABASE_URL: bouncer.pooled(database.url!) };
    const sources = [0, 1, 2].map(() => new DataSource(dataSourceOptions(loadConfig(env))));
    await Promise.all(sources.map((source) => source.initialize()));
    try {
      const outcomes = await Promise.allSettled(sources.map((source) => runPendingMigrations(source)));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const applied = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
      expect(applied).toHaveLength(ALL_MIGRATION_NAMES.length);
    } finally {
      await Promise.all(sources.map((source) => source.destroy()));
    }
    expect(await appliedNames(database.url!)).toEqual(ALL_MIGRATION_NAMES);
    expect(await advisoryLocks(database.url!)).toBe(0);
  });

  describe('three built instances starting at once', () => {
    let database: ProvisionedDatabase;
    let services: RunningService[];

    beforeAll(async () => {
      database = await provisionDatabase('postgres', { empty: true });
      databases.push(database);
      services = await startFleet(3, {
        ...database.env,
        DATABASE_URL: bouncer.pooled(database.url!),
        DATABASE_DIRECT_URL: database.url!,
      });
    }, 90_000);

    it('applies each migration once and leaves no advisory lock held', async () => {
      expect(await appliedNames(database.url!)).toEqual(ALL_MIGRATION_NAMES);
      expect(await advisoryLocks(database.url!)).toBe(0);
    });

    it('listens for revocations on connections of their own, not through the pooler', async () => {
      const [{ n }] = await query<{ n: number }>(
        database.url!,
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND query = 'LISTEN staff_auth_revocations'`,
      );
      expect(n).toBe(3);
    });

    it('serves logins and requests through the pooler, and a logout on one instance is refused on the others within 1 s', async () => {
      const account = await createFleetAccount(database.url!);
      const login = await logIn(services[0].url, account);
      expect(login.status).toBe(200);
      const session = login.body as Session;
      for (const service of services) {
        const me = await call(service.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() });
        expect(me.status).toBe(200);
      }
      const logout = await call(services[0].url, 'POST', '/v1/users/logout', {
        credential: session.jwt,
        ip: freshIp(),
      });
      expect(logout.status).toBe(204);
      const loggedOutAt = performance.now();
      for (const service of services.slice(1)) {
        let refused = await call(service.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() });
        while (refused.status === 200 && performance.now() - loggedOutAt < 1000) {
          await sleep(20);
          refused = await call(service.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() });
        }
        expect(refused.body).toMatchObject({ error: ['error_jwt_blacklisted'] });
        expect(performance.now() - loggedOutAt).toBeLessThan(1000);
      }
      expect(await advisoryLocks(database.url!)).toBe(0);
    });
  });
});
