import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';

/**
 * docs/contract.md "Running": everything the service writes under DATA_DIR (the embedded database, the JWT
 * secret, the operator socket) is its own user's only, whatever umask it was started with. The embedded database
 * creates its files with the process umask, so the umask itself is narrowed before anything is written; a
 * folder we create is 0700. An operator's existing folder is not changed behind their back, only named.
 *
 * Answers a warning to log when the existing folder lets others in, else `undefined`.
 */
export function keepDataDirPrivate(dataDir: string): string | undefined {
  process.umask(0o077);
  if (!existsSync(dataDir)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    return undefined;
  }
  const mode = statSync(dataDir).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return (
    `DATA_DIR ${dataDir} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); it holds the ` +
    `database and secrets: chmod -R go-rwx ${dataDir}`
  );
}
