import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLEAN_EXIT,
  exitStatus,
  killChildren,
  logRecords,
  requireBuild,
  SERVICE_ENTRY,
  serviceStarted,
  spawnCommand,
} from './support/processes';

// A first start initialises a PGlite folder (initdb), which takes seconds.
jest.setTimeout(60_000);

/** Every path under `root` with its permission bits. */
function modesUnder(root: string): Array<{ path: string; dir: boolean; mode: number }> {
  const stat = lstatSync(root);
  const here = { path: root, dir: stat.isDirectory(), mode: stat.mode & 0o777 };
  if (!here.dir) return [here];
  return [here, ...readdirSync(root).flatMap((name) => modesUnder(join(root, name)))];
}

/** Runs a shell check as the unprivileged user `nobody`: true when it succeeded. */
function asNobody(script: string): boolean {
  try {
    execFileSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', script], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * docs/contract.md "Running": everything under DATA_DIR is readable and writable by the service's user only
 * (folders 0700, files 0600), whatever the umask; an existing DATA_DIR open to others is named at start.
 * Started under `umask 000`, the loosest a supervisor can hand over.
 */
describe('DATA_DIR is private to the service user', () => {
  let parent: string;

  beforeAll(() => {
    requireBuild();
    parent = mkdtempSync(join(tmpdir(), 'staff-auth-private-'));
    // The parent is open to everyone, so only DATA_DIR's own modes keep others out.
    chmodSync(parent, 0o755);
  });
  afterAll(async () => {
    await killChildren();
    rmSync(parent, { recursive: true, force: true });
  });

  async function startUnderOpenUmask(dataDir: string) {
    const child = spawnCommand('sh', ['-c', 'umask 000 && exec "$0" "$1"', process.execPath, SERVICE_ENTRY], {
      DATA_DIR: dataDir,
      PORT: '0',
      SEED_DEMO: 'true',
    });
    return serviceStarted(child);
  }

  it('a new DATA_DIR and everything the service writes in it are 0700 / 0600, and user nobody reads nothing', async () => {
    const dataDir = join(parent, 'fresh');
    const service = await startUnderOpenUmask(dataDir);
    expect(exitStatus(await service.stop('SIGTERM'))).toEqual(CLEAN_EXIT);

    const entries = modesUnder(dataDir);
    expect(entries.filter((entry) => entry.path.includes('/db/')).length).toBeGreaterThan(10);
    expect(entries.filter((entry) => entry.dir && entry.mode !== 0o700)).toEqual([]);
    expect(entries.filter((entry) => !entry.dir && entry.mode !== 0o600)).toEqual([]);

    // The scan's probes: the database's files, the WAL (which holds password hashes) and the catalogue.
    expect(asNobody(`ls "${dataDir}"`)).toBe(false);
    expect(asNobody(`cat "${dataDir}/db/PG_VERSION"`)).toBe(false);
    expect(asNobody(`grep -r argon2id "${dataDir}/db/pg_wal"`)).toBe(false);
    expect(asNobody(`test -w "${dataDir}/db/global/1261"`)).toBe(false);
    // The same probe can succeed: the test would prove nothing if nobody could not read an open file.
    expect(asNobody(`test -r /etc/hostname`)).toBe(true);
  });

  it('an existing DATA_DIR open to others is named in a warning at start', async () => {
    const dataDir = join(parent, 'open');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const service = await startUnderOpenUmask(dataDir);
    const stopped = await service.stop('SIGTERM');
    const warning = logRecords(stopped.stdout).find((record) => record.level === 40 || record.level === 'warn');
    expect(String(warning?.msg)).toContain(`DATA_DIR ${dataDir} is open to other users (mode 0755)`);
    // What it wrote inside is private all the same.
    expect(modesUnder(join(dataDir, 'db')).filter((entry) => entry.mode & 0o077)).toEqual([]);
  });
});
