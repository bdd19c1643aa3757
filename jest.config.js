/**
 * Three projects: unit specs beside the code, and the end-to-end suite twice — once on the embedded database
 * (PGlite) and once on real PostgreSQL — so both targets are held to the same tests.
 */
// Node 20 loads ESM-only dependencies through require() natively; jest's module loader cannot, so the few
// such packages on the app's path are compiled to CommonJS for the tests only.
const ESM_ONLY_DEPENDENCIES = ['content-disposition'];

const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  [`/node_modules/(${ESM_ONLY_DEPENDENCIES.join('|')})/.+\\.js$`]: [
    'ts-jest',
    { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } },
  ],
};
const common = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform,
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_DEPENDENCIES.join('|')})/)`],
};
const e2e = { ...common, rootDir: '.', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] };

module.exports = {
  maxWorkers: 2,
  // Per-test, not per-project: jest reads it only here. End-to-end tests start an app and a database.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', rootDir: '.', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
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
