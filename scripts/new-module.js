#!/usr/bin/env node
/**
 * `npm run new:module -- <plural-kebab-name> [<singular-kebab-name>]`, e.g. `npm run new:module -- notes`:
 * writes a working two-route feature module (GET and POST /v1/<group>, company-scoped, one table) the way
 * docs/adding-a-feature-module.md describes, and registers it in the shared lists, adding lines only. The
 * result typechecks, lints and passes its own e2e test before you change anything; you then replace the
 * example field `name` with yours. test/new-module.embedded-only.e2e-spec.ts checks exactly that.
 */
const { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = process.cwd();
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

function fail(message) {
  console.error(`new:module: ${message}`);
  process.exit(1);
}

const [plural, singularArg] = process.argv.slice(2);
if (!plural || !KEBAB.test(plural)) fail('usage: npm run new:module -- <plural-kebab-name> [<singular-kebab-name>]');
const singular = singularArg ?? plural.replace(/s$/, '');
if (!KEBAB.test(singular) || singular === plural) fail('give the singular name too: npm run new:module -- data datum');

const pascal = (kebab) => kebab.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
const words = (kebab) => kebab.replace(/-/g, ' ');
const n = {
  folder: plural,
  Plural: pascal(plural),
  Singular: pascal(singular),
  singular: singular,
  camel: pascal(singular).replace(/^./, (c) => c.toLowerCase()),
  group: plural.replace(/-/g, ''),
  table: singular.replace(/-/g, '_'),
  words: words(plural),
  word: words(singular),
};
const read = (path) => readFileSync(join(ROOT, path), 'utf8');
const write = (path, text) => {
  if (existsSync(join(ROOT, path))) fail(`${path} exists already`);
  mkdirSync(join(ROOT, path, '..'), { recursive: true });
  writeFileSync(join(ROOT, path), text);
  console.log(`  created ${path}`);
};

/** Inserts `line` before the line matching `before`, after the first line matching `after` (one edit, one line). */
function insertLine(path, afterPattern, beforePattern, line) {
  const lines = read(path).split('\n');
  const start = lines.findIndex((l) => afterPattern.test(l));
  const end = lines.findIndex((l, i) => i > start && beforePattern.test(l));
  if (start < 0 || end < 0) fail(`cannot find where to register in ${path}; add ${line.trim()} by hand`);
  lines.splice(end, 0, line);
  writeFileSync(join(ROOT, path), lines.join('\n'));
}

function insertImport(path, line) {
  const lines = read(path).split('\n');
  const last = lines.reduce((at, l, i) => (/^import .* from '.*';$/.test(l) ? i : at), -1);
  lines.splice(last + 1, 0, line);
  writeFileSync(join(ROOT, path), lines.join('\n'));
}

if (existsSync(join(ROOT, 'src', n.folder))) fail(`src/${n.folder} exists already`);
const permissions = read('src/permissions/permission.ts');
if (permissions.includes(`'${n.group}:read'`)) fail(`the permission ${n.group}:read exists already`);

// A timestamp later than every existing migration, so the new one runs last.
const stamps = readdirSync(join(ROOT, 'src/database/migrations'))
  .map((file) => Number(/^(\d{13})-/.exec(file)?.[1] ?? 0))
  .filter((stamp) => stamp > 0);
const stamp = Math.max(Date.now(), ...stamps.map((s) => s + 1000));
const migration = `Create${n.Plural}${stamp}`;

console.log(`new:module ${n.folder}: /v1/${n.group}, permissions ${n.group}:read and ${n.group}:write`);
for (const [path, text] of Object.entries(require('./new-module-templates')(n, stamp, migration))) write(path, text);

insertImport('src/database/entities.ts', `import { ${n.Singular} } from '../${n.folder}/${n.singular}.entity';`);
insertLine('src/database/entities.ts', /^export const ENTITIES = \[$/, /^\];$/, `  ${n.Singular},`);
insertImport('src/database/migrations/index.ts', `import { ${migration} } from './${stamp}-Create${n.Plural}';`);
insertLine('src/database/migrations/index.ts', /^export const MIGRATIONS = \[$/, /^\];$/, `  ${migration},`);
insertImport('src/app.module.ts', `import { ${n.Plural}Module } from './${n.folder}/${n.folder}.module';`);
insertLine('src/app.module.ts', /^ {6}imports: \[$/, /^ {6}\],$/, `        ${n.Plural}Module,`);
insertLine(
  'src/permissions/permission.ts',
  /^export const PERMISSIONS = \[$/,
  /^\] as const;$/,
  `  '${n.group}:read',`,
);
insertLine(
  'src/permissions/permission.ts',
  /^export const PERMISSIONS = \[$/,
  /^\] as const;$/,
  `  '${n.group}:write',`,
);
insertLine(
  'src/permissions/permission.ts',
  /^export const PERMISSION_LABELS/,
  /^\};$/,
  `  '${n.group}:read': 'See ${n.words}',\n  '${n.group}:write': 'Add ${n.words}',`,
);
// The reviewed route table (src/app-routes.spec.ts) gets the two routes as they are generated; review them
// there when you change a route's access rule or limit.
const route = (method, permission, limit) =>
  `${`${method} /v1/${n.group}`.padEnd(46)} ${`permission ${n.group}:${permission}`.padEnd(45)} ${n.group}: ${limit} per 3 s`;
insertLine(
  'src/app-routes.spec.ts',
  /^const EXPECTED = `$/,
  /^`;$/,
  `${route('GET', 'read', 30)}\n${route('POST', 'write', 15)}`,
);
// docs/api.md: two rows of the permissions table (test/repository/permissions-documented.spec.ts compares it with
// src/permissions/permission.ts) and a row of the Feature APIs table.
insertLine(
  'docs/api.md',
  /^\| permission \| what it allows/,
  /^$/,
  `| \`${n.group}:read\` | See ${n.words} |\n| \`${n.group}:write\` | Add ${n.words} |`,
);
insertLine(
  'docs/api.md',
  /^\| routes \| permission \| notes \|$/,
  /^$/,
  `| \`GET/POST /v1/${n.group}\` | \`${n.group}:read\` / \`${n.group}:write\` | ${n.words} of the company |`,
);
// docs/architecture.md: the folder's row of the layout (test/repository/architecture-layout.spec.ts).
insertLine(
  'docs/architecture.md',
  /^src\/$/,
  /^ {2}health\/ /,
  `  ${`${n.folder}/`.padEnd(22)}  /v1/${n.group}: ${n.words} of the company (generated by new:module)`,
);
console.log('  registered in src/database/entities.ts, src/database/migrations/index.ts, src/app.module.ts,');
console.log('  src/permissions/permission.ts, src/app-routes.spec.ts, docs/api.md, docs/architecture.md');
console.log('Next: docs/adding-a-feature-module.md, "2. Make it yours".');
