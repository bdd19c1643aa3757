import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `content` to `path` once, 0600, atomically: written to a file of its own then linked into place, so two
 * processes starting together on one DATA_DIR both end up with the first one's value and neither reads a
 * half-written file.
 */
function writeOnce(dataDir: string, name: string, make: () => string): string {
  const path = join(dataDir, name);
  if (existsSync(path)) return readFileSync(path, 'utf8');
  mkdirSync(dataDir, { recursive: true });
  const staged = join(dataDir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(staged, make(), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(staged, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(staged, { force: true });
  }
  return readFileSync(path, 'utf8');
}

/**
 * Development only: an HS256 secret generated once and kept in DATA_DIR. Since signing moved to Ed25519 it signs
 * nothing new; it verifies the development tokens issued before, and the stored secrets' key is derived from it
 * while ENCRYPTION_KEY is unset. Production refuses to start without a configured key (see loadConfig).
 */
export function developmentSecret(dataDir: string): string {
  return writeOnce(dataDir, 'jwt-secret', () => randomBytes(48).toString('base64url')).trim();
}

/** Development only: the Ed25519 private key (PEM, PKCS#8) that signs, generated once and kept in DATA_DIR. */
export function developmentPrivateKeyPem(dataDir: string): string {
  return writeOnce(dataDir, 'jwt-ed25519.pem', () =>
    generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  );
}
