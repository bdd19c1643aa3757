/**
 * The PostgreSQL project needs a real server. When it cannot be reached the run fails with a message saying
 * so; it never passes by skipping those tests.
 *
 * It then makes the run's template database: migrated once, through the service's own data source and
 * migration runner, so each test file's `CREATE DATABASE … TEMPLATE` copy is what a first start would have made.
 * The migrations themselves are tested from empty in migrations.postgres-only.
 */
export default async function postgresGlobalSetup(): Promise<void> {
  const { POSTGRES_ADMIN_URL, POSTGRES_TEMPLATE_DATABASE, withAdminClient } = await import('./databases');
  try {
    await withAdminClient((client) => client.query('SELECT 1'));
  } catch (error) {
    const where = new URL(POSTGRES_ADMIN_URL);
    throw new Error(
      `PostgreSQL is not reachable at ${where.host} (${(error as Error).message}). Start it, or set ` +
        'TEST_POSTGRES_URL; the end-to-end suite runs against PostgreSQL as well as the embedded database.',
      { cause: error },
    );
  }

  const { loadConfig } = await import('../../src/platform/config/app-config');
  const { dataSourceOptions } = await import('../../src/data-source');
  const { runPendingMigrations } = await import('../../src/platform/database/migration-runner');
  const { DataSource } = await import('typeorm');
  await withAdminClient(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${POSTGRES_TEMPLATE_DATABASE}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${POSTGRES_TEMPLATE_DATABASE}"`);
  });
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${POSTGRES_TEMPLATE_DATABASE}`;
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url.toString(), SEED_DEMO: 'false' });
  const dataSource = await new DataSource(dataSourceOptions(config)).initialize();
  try {
    await runPendingMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
