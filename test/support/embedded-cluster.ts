import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createEmbeddedPgDriver } from '../../src/platform/database/embedded/embedded-pg-driver';

const ROOT = join(__dirname, '..', '..');

function pgliteVersion(): string {
  const manifest = join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * Where the initialized cluster is kept between runs: beside the installed PGlite (`node_modules/.cache`, as
 * ESLint and Babel keep theirs), named by its version, so a new PGlite makes a new one and `npm ci` starts clean.
 */
export function embeddedClusterCacheDir(): string {
  return join(ROOT, 'node_modules', '.cache', 'staff-auth-service', `pglite-${pgliteVersion()}-cluster`);
}

/**
 * Puts a freshly initialized, empty embedded cluster in `<dataDir>/db`: what the service's first start on an empty
 * DATA_DIR makes, copied in a fraction of a second instead of PGlite's initdb (about five seconds of a core).
 * The cluster is made once, by the service's own driver (owner-only modes and all), opened and closed cleanly,
 * and shared by the runs after; a run that finds none makes it, and of two runs racing, the first rename wins.
 * For tests of what runs on the database; a test of the first start itself starts on an empty DATA_DIR.
 */
export async function seedEmbeddedCluster(dataDir: string): Promise<void> {
  const cache = embeddedClusterCacheDir();
  if (!existsSync(cache)) await makeCluster(cache);
  cpSync(cache, join(dataDir, 'db'), { recursive: true });
}

async function makeCluster(cache: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'staff-auth-cluster-'));
  try {
    const pool = new (createEmbeddedPgDriver(scratch, 60_000).Pool)();
    try {
      await pool.query('SELECT 1');
    } finally {
      await new Promise<void>((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
    }
    mkdirSync(dirname(cache), { recursive: true });
    try {
      renameSync(join(scratch, 'db'), cache);
    } catch (error) {
      // Another run made it first (the target exists and is not empty): theirs is as good.
      if (!existsSync(cache)) throw error;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
