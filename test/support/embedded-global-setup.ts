import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Makes one PGlite folder for the run with every migration applied; each test file copies it. An initdb takes
 * seconds on the embedded database (paid once per installed PGlite: test/support/embedded-cluster.ts) and the
 * migrations about two more: paid once here instead of at every app start of every file (on the two-CPU CI
 * machine that was minutes of the suite). Opened and migrated through the service's own data source and
 * migration runner, so the copy is what a first start would have made; a start on it then finds nothing pending.
 * PostgreSQL's migrations are tested from empty in migrations.postgres-only.
 */
export default async function embeddedGlobalSetup(): Promise<void> {
  const { EMBEDDED_TEMPLATE_DIR } = await import('./databases');
  const { seedEmbeddedCluster } = await import('./embedded-cluster');
  const { loadConfig } = await import('../../src/platform/config/app-config');
  const { dataSourceOptions } = await import('../../src/data-source');
  const { runPendingMigrations } = await import('../../src/platform/database/migration-runner');
  const { DataSource } = await import('typeorm');

  rmSync(EMBEDDED_TEMPLATE_DIR, { recursive: true, force: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-template-'));
  try {
    await seedEmbeddedCluster(dataDir);
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, SEED_DEMO: 'false' });
    const dataSource = await new DataSource(dataSourceOptions(config)).initialize();
    try {
      await runPendingMigrations(dataSource);
    } finally {
      await dataSource.destroy();
    }
    renameSync(join(dataDir, 'db'), EMBEDDED_TEMPLATE_DIR);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
