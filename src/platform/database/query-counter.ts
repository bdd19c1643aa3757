import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * Counts the statements sent to the database. TypeORM hands every query to its logger whatever the `logging`
 * setting, so counting there costs one increment and prints nothing; the benchmark reads it from /metrics to
 * prove that a request with a known credential sends none.
 */
export class QueryCounter implements TypeOrmLogger {
  static total = 0;

  logQuery(): void {
    QueryCounter.total++;
  }

  logQueryError(): void {
    // Errors surface as exceptions; their parameters (hashes, digests) must not reach a log line.
  }

  logQuerySlow(): void {}

  logSchemaBuild(): void {}

  logMigration(): void {}

  log(): void {}
}
