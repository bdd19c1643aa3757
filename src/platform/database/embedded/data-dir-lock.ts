import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Thrown when another live process already has the embedded database open. */
export class DataDirInUseError extends Error {
  /** Its message is the whole story: main prints it as one line, and the log adds no stack trace before it. */
  readonly operatorMessage = true;

  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}. ` +
        'Stop that process first, or point DATABASE_URL at PostgreSQL to run several processes at once.',
    );
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The lock files this process holds. A file naming this process's pid that is not in here was left by an earlier
 * process that had the same pid, as a restarted container's entrypoint usually does.
 */
const heldByThisProcess = new Set<string>();

/**
 * An exclusive, pid-stamped lock file beside the embedded database. PGlite has no lock of its own, and two
 * processes writing one data folder corrupt it. A lock left by a process that died is taken over.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, '.embedded-db.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        heldByThisProcess.add(path);
        return new DataDirLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
        const inUse =
          Number.isInteger(holder) && (holder === process.pid ? heldByThisProcess.has(path) : isAlive(holder));
        if (inUse) throw new DataDirInUseError(dataDir, holder);
        rmSync(path, { force: true });
      }
    }
    throw new Error(`Could not lock the embedded database in ${dataDir}`);
  }

  release(): void {
    heldByThisProcess.delete(this.path);
    rmSync(this.path, { force: true });
  }
}
