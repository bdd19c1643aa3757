/**
 * Three projects: unit specs beside the code, and the end-to-end suite twice — once on the embedded database
 * (PGlite) and once on real PostgreSQL — so both targets are held to the same tests.
 */
// One id per run, set before any global set-up or worker starts, so that every process of the run names the same
// embedded template folder and two runs on one machine never share (or delete) each other's.
process.env.JEST_RUN_ID ??= `${process.pid}-${require('node:crypto').randomBytes(3).toString('hex')}`;

const common = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};
const e2e = { ...common, rootDir: '.', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] };

module.exports = {
  maxWorkers: 2,
  // Per-test, not per-project: jest reads it only here. End-to-end tests start an app and a database.
  testTimeout: 60_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts', '<rootDir>/client/src/**/*.spec.ts'],
    },
    // Checks of the repository itself (documents, links, folder rules, the module generator's output), not of
    // the service's code: no app, no database.
    { ...common, displayName: 'repository', rootDir: '.', testMatch: ['<rootDir>/test/repository/**/*.spec.ts'] },
    {
      ...e2e,
      displayName: 'e2e-embedded',
      setupFiles: ['<rootDir>/test/support/use-embedded.ts'],
      globalSetup: '<rootDir>/test/support/embedded-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/embedded-global-teardown.ts',
      testPathIgnorePatterns: ['/node_modules/', '\\.postgres-only\\.'],
    },
    {
      ...e2e,
      displayName: 'e2e-postgres',
      setupFiles: ['<rootDir>/test/support/use-postgres.ts'],
      globalSetup: '<rootDir>/test/support/postgres-global-setup.ts',
      // Starting the built service on its embedded default is a property of the embedded target only.
      testPathIgnorePatterns: ['/node_modules/', '\\.embedded-only\\.'],
    },
  ],
};
