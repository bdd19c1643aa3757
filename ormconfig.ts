import 'reflect-metadata';
import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import { loadConfig } from './src/platform/config/app-config';
import { loadEnvFile } from './src/platform/config/env-file';
import { dataSourceOptions } from './src/data-source';
import { QueryCounter } from './src/platform/database/query-counter';

loadEnvFile();

/**
 * The app's logger prints nothing (query parameters carry hashes), but the TypeORM CLI reports through the
 * logger: `migration:show` lists the migrations as "schema build" messages, `migration:run` as migration ones.
 * Only those two reach the terminal here; queries are still just counted.
 */
class TypeOrmCliLogger implements TypeOrmLogger {
  private readonly counter = new QueryCounter();

  logQuery(): void {
    this.counter.logQuery();
  }

  logQueryError(): void {}

  logQuerySlow(): void {}

  logSchemaBuild(message: string): void {
    process.stdout.write(`${message}\n`);
  }

  logMigration(message: string): void {
    process.stdout.write(`${message}\n`);
  }

  log(): void {}
}

/**
 * The DataSource of the TypeORM CLI (`npm run typeorm -- migration:show`), built from the same options as the
 * app's, so both always see the same database, entities and migrations.
 */
export default new DataSource({ ...dataSourceOptions(loadConfig()), logger: new TypeOrmCliLogger() });
