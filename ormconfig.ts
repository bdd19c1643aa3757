import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { loadEnvFile } from './src/config/env-file';
import { buildDataSourceOptions } from './src/database/data-source-options';

loadEnvFile();

/**
 * The DataSource of the TypeORM CLI (`npx typeorm -d dist/ormconfig.js migration:show`), built from the same
 * options as the app's, so both always see the same database, entities and migrations.
 */
export default new DataSource(buildDataSourceOptions(loadConfig()));
