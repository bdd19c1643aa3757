import { ConfigError, type Env, read } from './env-values';

/** The JWT signing secret and the ones still verified; a production deployment must bring its own. */
export function readJwtSecrets(env: Env, isProduction: boolean) {
  const jwtSecret = read(env, 'JWT_SECRET');
  if (jwtSecret === undefined && isProduction) {
    throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
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
