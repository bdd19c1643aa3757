import { databaseSchema } from '../../src/data-source';

/** A migration's class name ends with its 13-digit timestamp (`CreateProducts1763700200000`). */
function timestampOf(migration: { name: string }): number {
  return Number(/(\d{13})$/.exec(migration.name)?.[1] ?? Number.NaN);
}

/**
 * Every migration of the schema: the core ones (src/platform/database/migrations) and those the feature modules of
 * src/features.ts declare, by class name (as `schema_migrations` records them), in the order TypeORM
 * applies them (by timestamp): the order of `schema_migrations` by id on a fresh database.
 */
export const ALL_MIGRATION_NAMES: readonly string[] = [...databaseSchema().migrations]
  .sort((a, b) => timestampOf(a) - timestampOf(b))
  .map((migration) => migration.name);
