/**
 * The unit specs beside the code (those that start processes apart, in `system-unit`), the checks of the
 * repository, and the end-to-end suite in two kinds:
 * - fast (`e2e-*`): the app in this process, on a database of its own;
 * - system (`system-*`): files that start other processes (the built service, the CLI, Redis topologies,
 *   HAProxy, PgBouncer, dnsmasq, Chromium), found by test/support/suite-kinds.js. `npm test` runs them after the
 *   fast ones, so a red fast test fails in minutes.
 * Each kind runs on the embedded database (PGlite) and on real PostgreSQL, except the files named
 * `*.postgres-only.*`, `*.embedded-only.*`, and `*.any-database.*` (behaviour that does not depend on the
 * database: run once, on PostgreSQL; test/repository/database-coverage.spec.ts keeps that honest).
 */
// One id per run, set before any global set-up or worker starts, so that every process of the run names the same
// templates and two runs on one machine never share (or delete) each other's.
process.env.JEST_RUN_ID ??= `${process.pid}-${require('node:crypto').randomBytes(3).toString('hex')}`;

const { patternFor, systemFiles, systemUnitFiles } = require('./test/support/suite-kinds');

// Stops what a file left observing process-wide, which would keep the file's realm alive for the worker's life.
const OBSERVERS = '<rootDir>/test/support/release-process-observers.ts';
const common = {
  testEnvironment: 'node',
  setupFilesAfterEnv: [OBSERVERS],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // Each module compiled once per worker, not once per file (test/support/code-cache-runtime.js); JEST_CODE_CACHE=0
  // runs jest's own runtime, for bench/jest-code-cache.js's comparison.
  runtime: process.env.JEST_CODE_CACHE === '0' ? undefined : '<rootDir>/test/support/code-cache-runtime.js',
};
const SYSTEM = patternFor(systemFiles());
const SYSTEM_UNIT = patternFor(systemUnitFiles());
const HEAP = '\\.heap\\.spec\\.ts$';
const UNIT_FILES = [
  '<rootDir>/src/**/*.spec.ts',
  '<rootDir>/scripts/**/*.spec.ts',
  '<rootDir>/client/src/**/*.spec.ts',
];
const e2e = { ...common, rootDir: '.', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] };
const onEmbedded = {
  setupFiles: ['<rootDir>/test/support/use-embedded.ts'],
  globalSetup: '<rootDir>/test/support/embedded-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/embedded-global-teardown.ts',
};
const onPostgres = {
  setupFiles: ['<rootDir>/test/support/use-postgres.ts'],
  globalSetup: '<rootDir>/test/support/postgres-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/postgres-global-teardown.ts',
};
const NOT_ON_EMBEDDED = ['/node_modules/', '\\.postgres-only\\.', '\\.any-database\\.'];
// Starting the built service on its embedded default is a property of the embedded target only.
const NOT_ON_POSTGRES = ['/node_modules/', '\\.embedded-only\\.'];
// The set-up of the projects that run in this process only (unit, heap and the fast end-to-end ones).
const IN_PROCESS = ['<rootDir>/test/support/no-child-processes.ts', OBSERVERS];
const fast = (ignore, ...setup) => ({
  testPathIgnorePatterns: [...ignore, SYSTEM],
  setupFilesAfterEnv: [...IN_PROCESS, ...setup],
});

module.exports = {
  maxWorkers: 2,
  // A worker still holds some of its finished files (their realms: apps, pools, compiled code), about 20 MB a file
  // (test/support/release-process-observers.ts has one cause): it reached 2.4 GB by the fast phase's end, and one
  // took more than jest's 500 ms to exit ("a worker process has failed to exit gracefully"). A worker past 1 GB
  // after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
  // Per-test, not per-project: jest reads it only here. End-to-end tests start an app and a database.
  testTimeout: 60_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      rootDir: '.',
      testMatch: UNIT_FILES,
      testPathIgnorePatterns: ['/node_modules/', SYSTEM_UNIT, HEAP],
      setupFilesAfterEnv: IN_PROCESS,
    },
    // Unit specs at size (`*.heap.spec.ts`): seconds of a core and the collector; `npm test` runs them beside the
    // lints, not beside the tests that hold production's deadlines.
    {
      ...common,
      displayName: 'heap',
      rootDir: '.',
      // jest's own runtime: nothing held between files beside the heap these specs measure.
      runtime: undefined,
      testRegex: HEAP,
      setupFilesAfterEnv: IN_PROCESS,
    },
    // The unit specs that start a Redis server, a Sentinel set, a Cluster or a script: run with the system files.
    { ...common, displayName: 'system-unit', rootDir: '.', testRegex: SYSTEM_UNIT },
    // Checks of the repository itself (documents, links, folder rules, the module generator's output), not of
    // the service's code: no app, no database.
    { ...common, displayName: 'repository', rootDir: '.', testMatch: ['<rootDir>/test/repository/**/*.spec.ts'] },
    { ...e2e, ...onEmbedded, displayName: 'e2e-embedded', ...fast(NOT_ON_EMBEDDED) },
    {
      ...e2e,
      ...onPostgres,
      displayName: 'e2e-postgres',
      ...fast(NOT_ON_POSTGRES, '<rootDir>/test/support/sql-recorder.ts'),
    },
    {
      ...e2e,
      ...onEmbedded,
      displayName: 'system-embedded',
      testRegex: SYSTEM,
      testMatch: undefined,
      testPathIgnorePatterns: NOT_ON_EMBEDDED,
    },
    {
      ...e2e,
      ...onPostgres,
      displayName: 'system-postgres',
      testRegex: SYSTEM,
      testMatch: undefined,
      testPathIgnorePatterns: NOT_ON_POSTGRES,
    },
  ],
};
