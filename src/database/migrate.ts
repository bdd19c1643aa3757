import 'reflect-metadata';
import dataSource from '../../ormconfig';
import { runPendingMigrations } from './migration-runner';

/** `npm run migration:run`: applies pending migrations under the same advisory lock the service takes. */
async function main(): Promise<void> {
  await dataSource.initialize();
  try {
    const applied = await runPendingMigrations(dataSource);
    process.stdout.write(
      `${JSON.stringify({ applied: applied.map((migration) => migration.name) })}\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${(error as Error)?.message?.split('\n')[0] ?? String(error)}\n`);
  process.exit(1);
});
