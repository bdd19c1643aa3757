import { type DynamicModule, Module } from '@nestjs/common';

/** Every entity and migration of the service: chosen by the composition root (src/data-source.ts), not here. */
export interface DatabaseSchema {
  readonly entities: readonly Function[];
  readonly migrations: readonly Function[];
}

export const DATABASE_SCHEMA = Symbol('DATABASE_SCHEMA');

/**
 * Hands the root's schema to the DatabaseModule's connection factory, the way ConfigModule hands it the config:
 * global because TypeORM's async factory resolves its inject list from global providers only.
 */
@Module({})
export class DatabaseSchemaModule {
  static forRoot(schema: DatabaseSchema): DynamicModule {
    return {
      module: DatabaseSchemaModule,
      global: true,
      providers: [{ provide: DATABASE_SCHEMA, useValue: schema }],
      exports: [DATABASE_SCHEMA],
    };
  }
}
