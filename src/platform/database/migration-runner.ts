import { DataSource, Migration, MigrationExecutor, type QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import type { DatabaseSchema } from './schema';

/** Any constant unique to this service; every instance must use the same one. */
export const MIGRATION_LOCK_KEY = 7_341_920_553;
const LOCK_POLL_MS = 200;
/** How long one migration statement may take before the start gives up on it. */
export const MIGRATION_QUERY_TIMEOUT_MS = 120_000;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances that start together run
 * them once: the first takes the lock and migrates, the others wait, then find nothing pending.
 *
 * The lock is transaction-scoped and every pending migration runs inside that one transaction: the lock can
 * never outlive it, on whatever connection it was taken. A session lock would be left held on a pooled server
 * connection by a pooler in transaction mode (PgBouncer), which also spreads the lock, the check of what is
 * pending and the migrations over different server connections, so two instances ran the same migration.
 * A migration that fails rolls back the whole run, lock included.
 */
export async function runPendingMigrations(dataSource: DataSource): Promise<Migration[]> {
  const queryRunner = dataSource.createQueryRunner('master');
  try {
    await queryRunner.startTransaction();
    try {
      await acquireLock(queryRunner);
      const executor = new MigrationExecutor(dataSource, queryRunner);
      // Inside the transaction opened above: the executor sees it active and opens none of its own.
      executor.transaction = 'all';
      const applied = await executor.executePendingMigrations();
      await queryRunner.commitTransaction();
      return applied;
    } catch (error) {
      if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  } finally {
    await queryRunner.release();
  }
}

/**
 * Runs start-up work (the migrations, resealing stored secrets) on a data source of its own, closed afterwards:
 * through `DATABASE_DIRECT_URL` when it is set, else `DATABASE_URL`; on the embedded database, on the
 * application's data source. Its query timeout is the migrations' one: the application's (under 2 s, so that a
 * silent server fails a request fast) ended a migration's DDL on a busy server, and a stalled start's BEGIN, and
 * failed the start. Start-up work answers no request, so no request waits on it.
 */
export async function withStartupDataSource<T>(
  config: AppConfig,
  schema: DatabaseSchema,
  dataSource: DataSource | undefined,
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  // The embedded database admits one session: its start-up work runs on the application's own.
  if (config.databaseUrl === undefined && dataSource) return work(dataSource);
  const starting = {
    ...config,
    databaseQueryTimeoutMs: Math.max(config.databaseQueryTimeoutMs, MIGRATION_QUERY_TIMEOUT_MS),
  };
  const direct = await new DataSource(buildDataSourceOptions(starting as AppConfig, schema, 'direct')).initialize();
  try {
    return await work(direct);
  } finally {
    await direct.destroy();
  }
}

/**
 * Asks for the lock again and again rather than waiting in one `pg_advisory_xact_lock`: the other instance's
 * migrations may run longer than the query timeout, which would end that one statement and fail this start.
 * A refused try leaves the transaction usable.
 */
async function acquireLock(queryRunner: QueryRunner): Promise<void> {
  for (;;) {
    const [{ locked }] = (await queryRunner.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
      MIGRATION_LOCK_KEY,
    ])) as Array<{ locked: boolean }>;
    if (locked) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}
