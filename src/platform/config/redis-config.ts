import { ConfigError, type Env, read, readableFile } from './env-values';
import { parseRedisUrl, RedisUrlError } from './redis-url';

function redisUrl(env: Env): string | undefined {
  const raw = read(env, 'REDIS_URL');
  if (raw === undefined) return undefined;
  try {
    parseRedisUrl(raw);
  } catch (error) {
    if (error instanceof RedisUrlError) throw new ConfigError('REDIS_URL', error.message);
    throw error;
  }
  return raw;
}

function redisKeyPrefix(env: Env): string {
  const raw = read(env, 'REDIS_KEY_PREFIX') ?? 'staff-auth:';
  // Braces would change the Redis Cluster hash slot of the rate-limit keys.
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) {
    throw new ConfigError('REDIS_KEY_PREFIX', `must be 1 to 64 letters, digits or ":_.-", got "${raw}"`);
  }
  return raw;
}

/** The optional shared Redis (counters, revocation notices, fleet presence). */
export function readRedisConfig(env: Env) {
  return {
    redisUrl: redisUrl(env),
    redisTlsCaFile: readableFile(env, 'REDIS_TLS_CA_FILE'),
    redisKeyPrefix: redisKeyPrefix(env),
  };
}
