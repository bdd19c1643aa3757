import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './platform/config/app-config';
import { loadEnvFile } from './platform/config/env-file';
import { dataSourceOptions } from './data-source';
import { runPendingMigrations } from './platform/database/migration-runner';

loadEnvFile();
// The app's options and logger, not ormconfig's: that one echoes TypeORM's migration messages for the TypeORM
// CLI, and this command's standard output is one JSON line. The database itself (DATABASE_DIRECT_URL when set),
// never a pooler in transaction mode.
const config = loadConfig();
const dataSource = new DataSource(dataSourceOptions(config, 'direct'));

/** `npm run migration:run`: applies pending migrations under the same advisory lock the service takes. */
async function main(): Promise<void> {
  await dataSource.initialize();
  try {
    const applied = await runPendingMigrations(dataSource);
    process.stdout.write(`${JSON.stringify({ applied: applied.map((migration) => migration.name) })}\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${(error as Error)?.message?.split('\n')[0] ?? String(error)}\n`);
  process.exit(1);
});
