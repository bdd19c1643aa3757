import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, type Env, read } from './env-values';

function readPem(key: string, path: string): string {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch {
    throw new ConfigError(key, `names a file that cannot be read: ${path}`);
  }
}

function ed25519(key: string, path: string, make: (pem: string) => KeyObject): KeyObject {
  let parsed: KeyObject;
  try {
    parsed = make(readPem(key, path));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(key, `must name a PEM file holding an Ed25519 key: ${path} does not`);
  }
  if (parsed.asymmetricKeyType !== 'ed25519') {
    throw new ConfigError(
      key,
      `must name a PEM file holding an Ed25519 key: ${path} holds ${parsed.asymmetricKeyType}`,
    );
  }
  return parsed;
}

/**
 * The Ed25519 keys (docs/contract.md "Other systems plug in"): the private key that signs, read once at boot
 * so a missing or wrong file stops the start rather than the first login; the public keys of earlier private
 * keys, still verified and published. Without a private key, JWT_SECRET alone keeps HS256 signing; with neither
 * (development), a key is generated under DATA_DIR (src/platform/keys/jwt-key-ring.ts).
 */
export function readSigningKeys(env: Env) {
  const privatePath = read(env, 'JWT_PRIVATE_KEY_FILE');
  const jwtPrivateKey =
    privatePath === undefined
      ? undefined
      : ed25519('JWT_PRIVATE_KEY_FILE', privatePath, (pem) => createPrivateKey({ key: pem, format: 'pem' }));
  const jwtPublicKeys = (read(env, 'JWT_PUBLIC_KEY_FILES') ?? '')
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '')
    .map((path) => ed25519('JWT_PUBLIC_KEY_FILES', path, (pem) => createPublicKey({ key: pem, format: 'pem' })));
  return { jwtPrivateKey, jwtPublicKeys };
}

/**
 * ENCRYPTION_KEY: 32 bytes, base64 (or base64url), the key of the secrets stored sealed (TOTP secrets, SSO
 * client secrets). Unset: derived from the JWT secret as before.
 */
export function readEncryptionKey(env: Env): Buffer | undefined {
  const raw = read(env, 'ENCRYPTION_KEY');
  if (raw === undefined) return undefined;
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32) {
    throw new ConfigError('ENCRYPTION_KEY', 'must be 32 bytes, base64-encoded (openssl rand -base64 32)');
  }
  return bytes;
}
