import { ConfigError, type Env, read } from './env-values';

/** The HS256 secret and the ones still verified; a production deployment must bring it or a private key. */
export function readJwtSecrets(env: Env, isProduction: boolean) {
  const jwtSecret = read(env, 'JWT_SECRET');
  // Production brings its own signing key: an Ed25519 private key, or (as before the move) an HS256 secret.
  if (jwtSecret === undefined && isProduction && read(env, 'JWT_PRIVATE_KEY_FILE') === undefined) {
    throw new ConfigError('JWT_SECRET', 'or JWT_PRIVATE_KEY_FILE is required when NODE_ENV=production');
  }
  // The stored secrets' key is derived from JWT_SECRET when ENCRYPTION_KEY is unset: one of them must be there.
  if (jwtSecret === undefined && isProduction && read(env, 'ENCRYPTION_KEY') === undefined) {
    throw new ConfigError('ENCRYPTION_KEY', 'is required when NODE_ENV=production and JWT_SECRET is not set');
  }
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes long');
  }
  const jwtPreviousSecrets = (read(env, 'JWT_PREVIOUS_SECRETS') ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
  if (jwtPreviousSecrets.some((secret) => Buffer.byteLength(secret) < 32)) {
    throw new ConfigError('JWT_PREVIOUS_SECRETS', 'must list secrets of at least 32 bytes each, comma-separated');
  }
  return { jwtSecret, jwtPreviousSecrets };
}

export function readMetricsToken(env: Env): string | undefined {
  const raw = read(env, 'METRICS_TOKEN');
  if (raw === undefined) return undefined;
  // Compared with every scrape's header: printable ASCII only, and long enough not to be guessed.
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 16 to 256 printable characters without spaces');
  }
  return raw;
}
