import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyFiles {
  privateKey: KeyObject;
  privateFile: string;
  publicFile: string;
}

/** A fresh Ed25519 key pair as PEM files (0600), as an operator provides JWT_PRIVATE_KEY_FILE / JWT_PUBLIC_KEY_FILES. */
export function ed25519KeyFiles(dir = mkdtempSync(join(tmpdir(), 'staff-auth-keys-')), name = 'jwt'): KeyFiles {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateFile = join(dir, `${name}-private.pem`);
  const publicFile = join(dir, `${name}-public.pem`);
  writeFileSync(privateFile, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  writeFileSync(publicFile, publicKey.export({ format: 'pem', type: 'spki' }), { mode: 0o600 });
  return { privateKey, privateFile, publicFile };
}

/** The key every test app of this jest worker signs with (instances of one test share it, as a fleet must). */
export const TEST_SIGNING_KEY = ed25519KeyFiles();
