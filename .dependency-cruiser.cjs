/**
 * The folder rules of src/ and admin/src/, checked in `npm test` by scripts/check-boundaries.js (npm run
 * lint:deps). dependency-cruiser checks the per-import rules below; the rules it cannot express (two folders
 * importing each other, file length) are computed by that script from the same import graph.
 */
/** Service modules the administration page bundles as well (admin/src imports them). */
const BROWSER_SAFE = '^src/(access/permissions/permission|accounts/employee/password-rule|features)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import cycle: the files cannot be read, tested or loaded one before the other. Type-only imports ' +
        'count too: they tie the two files together for a reader all the same.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-test',
      severity: 'error',
      comment: 'The service must not depend on its tests or their helpers (unit specs beside the code may).',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'src-not-to-admin',
      severity: 'error',
      comment: 'The service serves the built page; it never imports its sources.',
      from: { path: '^src/' },
      to: { path: '^admin/' },
    },
    {
      name: 'admin-shares-only-browser-safe-modules',
      severity: 'error',
      comment:
        "The page shares the service's rules where they are plain code (the permission catalogue, the password " +
        'rule), nothing that pulls Nest, TypeORM or Node into the browser bundle.',
      from: { path: '^admin/' },
      to: { path: '^src/', pathNot: BROWSER_SAFE },
    },
    {
      name: 'browser-safe-modules-stay-plain',
      severity: 'error',
      comment:
        'A module the page bundles imports no other module of the service and no Node built-in (but the plain ' +
        'list of feature modules, src/features.ts, whose permissions the catalogue includes).',
      from: { path: BROWSER_SAFE },
      to: { dependencyTypes: ['local', 'core', 'aliased'], pathNot: BROWSER_SAFE },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json', '.d.ts'],
    },
  },
};
