import { resolve } from 'node:path';
import { ConfigError, type Env, integer, read, url } from './env-values';

/** PostgreSQL (or, without `DATABASE_URL`, the embedded database under `DATA_DIR`) and its time limits. */
export function readDatabaseConfig(env: Env) {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres://', 'postgresql://']);
  const databaseDirectUrl = url(env, 'DATABASE_DIRECT_URL', ['postgres://', 'postgresql://']);
  if (databaseDirectUrl !== undefined && databaseUrl === undefined) {
    throw new ConfigError('DATABASE_DIRECT_URL', 'is only used together with DATABASE_URL');
  }
  return {
    databaseUrl,
    dataDir: resolve(read(env, 'DATA_DIR') ?? './data'),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 1500, 100, 60_000),
    databaseQueryTimeoutMs: integer(env, 'DATABASE_QUERY_TIMEOUT_MS', 1500, 100, 600_000),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    databaseDirectUrl,
  };
}
