import { DataSource, Migration, MigrationExecutor, type QueryRunner } from 'typeorm';

/** Any constant unique to this service; every instance must use the same one. */
export const MIGRATION_LOCK_KEY = 7_341_920_553;
const LOCK_POLL_MS = 200;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances that start together run
 * them once: the first takes the lock and migrates, the others wait, then find nothing pending.
 * Each migration runs in its own transaction on the session that holds the lock.
 */
export async function runPendingMigrations(dataSource: DataSource): Promise<Migration[]> {
  const queryRunner = dataSource.createQueryRunner('master');
  try {
    await acquireLock(queryRunner);
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

/**
 * Asks for the lock again and again rather than waiting in one `pg_advisory_lock`: the other instance's
 * migrations may run longer than the query timeout, which would end that one statement and fail this start.
 */
async function acquireLock(queryRunner: QueryRunner): Promise<void> {
  for (;;) {
    const [{ locked }] = (await queryRunner.query('SELECT pg_try_advisory_lock($1) AS locked', [
      MIGRATION_LOCK_KEY,
    ])) as Array<{ locked: boolean }>;
    if (locked) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}
