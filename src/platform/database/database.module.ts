import { Inject, Injectable, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { AppMetrics } from '../common/metrics/app-metrics';
import { buildDataSourceOptions } from './data-source-options';
import { QueryCounter } from './query-counter';
import { runPendingMigrations, withStartupDataSource } from './migration-runner';
import { DATABASE_SCHEMA, type DatabaseSchema } from './schema';

/** The statements counted by {@link QueryCounter} (per process, as the TypeORM logger is), read when scraped. */
@Injectable()
class QueryMetrics {
  constructor(metrics: AppMetrics) {
    metrics.readCounter({
      name: 'db_queries_total',
      help: 'Statements this process sent to the database.',
      read: () => QueryCounter.total,
    });
  }
}

/**
 * Opens the pool's first connections at boot, so that the first requests do not each pay for one: on a loaded
 * machine a new connection took longer than the 1.5 s connect timeout, and the request that waited for it failed
 * (a request is answered 503 within 2 s, docs/contract.md). Best effort: a connection that fails to open here is
 * opened by the request that needs it, as before.
 */
async function warmPool(dataSource: DataSource, count: number): Promise<void> {
  const runners = Array.from({ length: count }, () => dataSource.createQueryRunner());
  await Promise.allSettled(runners.map((runner) => runner.connect()));
  await Promise.allSettled(runners.map((runner) => runner.release()));
}

/**
 * Start-up work (the migrations, resealing stored secrets) on a data source of its own with the migrations' query
 * timeout, so a busy or stalled start is not failed by the bound that keeps requests fast.
 */
@Injectable()
export class StartupDatabase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    @Inject(DATABASE_SCHEMA) private readonly schema: DatabaseSchema,
  ) {}

  run<T>(work: (dataSource: DataSource) => Promise<T>): Promise<T> {
    return withStartupDataSource(this.config, this.schema, this.dataSource, work);
  }
}

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig, DATABASE_SCHEMA],
      useFactory: (config: AppConfig, schema: DatabaseSchema) => ({
        ...buildDataSourceOptions(config, schema),
        // Fail the boot at once when the database is down; the orchestrator restarts us. No retry also means
        // no "Unable to connect… Retrying (1)" line with a stack before main's one-line reason.
        retryAttempts: 0,
        toRetry: () => false,
      }),
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        await warmPool(dataSource, (options as { extra?: { min?: number } }).extra?.min ?? 0);
        return dataSource;
      },
    }),
  ],
  providers: [
    QueryMetrics,
    StartupDatabase,
    {
      provide: 'MIGRATIONS_APPLIED',
      inject: [StartupDatabase, AppConfig],
      useFactory: async (startup: StartupDatabase, config: AppConfig) => {
        if (!config.migrationsRun) return [];
        const applied = await startup.run(runPendingMigrations);
        if (applied.length > 0) {
          // One line, not the class names: a first start applies them all, and its screen is for the password.
          const latest = applied[applied.length - 1].name;
          new Logger('Database').log(`Applied ${applied.length} migration(s), the latest ${latest}`);
        }
        return applied;
      },
    },
  ],
  exports: ['MIGRATIONS_APPLIED', StartupDatabase],
})
export class DatabaseModule {}
