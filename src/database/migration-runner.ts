import { DataSource, Migration, MigrationExecutor } from 'typeorm';

/** Any constant unique to this service; every instance must use the same one. */
const MIGRATION_LOCK_KEY = 7_341_920_553;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances that start together run
 * them once: the first takes the lock and migrates, the others wait, then find nothing pending.
 * Each migration runs in its own transaction on the session that holds the lock.
 */
export async function runPendingMigrations(dataSource: DataSource): Promise<Migration[]> {
  const queryRunner = dataSource.createQueryRunner('master');
  try {
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = 'each';
      return await executor.executePendingMigrations();
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await queryRunner.release();
  }
}
