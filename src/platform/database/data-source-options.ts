import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { DiscardOnTimeoutClient } from './discard-on-timeout-client';
import { LanePool } from './lane-pool';
import { createEmbeddedPgDriver } from './embedded/embedded-pg-driver';
import { QueryCounter } from './query-counter';
import type { DatabaseSchema } from './schema';

/**
 * The one description of the database, used by the app, the operator CLI, the migration runner and the
 * TypeORM CLI (through ormconfig.ts). Both targets speak PostgreSQL and run the same migrations.
 *
 * `direct`: the database itself (`DATABASE_DIRECT_URL` when set) for what needs a session of its own (the
 * migrations); one connection is enough there.
 *
 * Entities and migrations: the schema the composition root assembles from the modules (src/data-source.ts); the
 * platform knows no module's tables.
 */
export function buildDataSourceOptions(
  config: AppConfig,
  schema: DatabaseSchema,
  target: 'pooled' | 'direct' = 'pooled',
): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    entities: [...schema.entities] as DataSourceOptions['entities'],
    migrations: [...schema.migrations] as DataSourceOptions['migrations'],
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    // The schema comes only from migrations; TypeORM must not try to CREATE EXTENSION at connect.
    installExtensions: false,
    // TypeORM's own logger prints query parameters (password hashes, token digests); ours only counts.
    logging: false,
    logger: new QueryCounter(),
  };

  if (config.usesEmbeddedDatabase) {
    return {
      ...common,
      driver: createEmbeddedPgDriver(config.dataDir, config.databaseQueryTimeoutMs),
    };
  }

  return {
    ...common,
    // TypeORM reads only `Pool` of the driver it is given (and `defaults`, for an option we do not set).
    driver: { Pool: LanePool },
    url: target === 'direct' ? (config.databaseDirectUrl ?? config.databaseUrl) : config.databaseUrl,
    applicationName: 'staff-auth-service',
    connectTimeoutMS: config.databaseConnectTimeoutMs,
    poolSize: target === 'direct' ? 1 : config.databasePoolSize,
    extra: {
      // A server that stops answering must fail the request, not hang it.
      query_timeout: config.databaseQueryTimeoutMs,
      Client: DiscardOnTimeoutClient,
      keepAlive: true,
      idleTimeoutMillis: 30_000,
      // Kept open however idle (opened at boot, see warmPool): a request pays for a new connection only beyond
      // them, and a burst after a quiet spell finds them ready.
      min: target === 'pooled' ? warmConnections(config) : 0,
    },
  };
}

/** How many of the pool's connections are opened at boot and kept open. */
function warmConnections(config: AppConfig): number {
  return Math.min(2, config.databasePoolSize);
}
