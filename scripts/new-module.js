#!/usr/bin/env node
/**
 * `npm run new:module -- <plural-kebab-name> [<singular-kebab-name>]`, e.g. `npm run new:module -- notes`:
 * writes a working two-route feature module (GET and POST /v1/<group>, company-scoped, one table) the way
 * docs/adding-a-feature-module.md describes, and registers it with one line of src/features.ts (plus its rows of
 * docs/feature-modules.md); both are merged with merge=union, so modules added on two branches merge cleanly. The
 * result typechecks, lints and passes its own e2e test before you change anything; you then replace the
 * example field `name` with yours. test/new-module-merge.embedded-only.e2e-spec.ts checks exactly that, for two modules on two branches.
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

if (existsSync(join(ROOT, 'src', 'features', n.folder))) fail(`src/features/${n.folder} exists already`);
for (const catalogue of ['src/access/permissions/permission.ts', 'src/features.ts']) {
  if (read(catalogue).includes(`'${n.group}:read'`)) fail(`the permission ${n.group}:read exists already`);
}

// A timestamp later than every existing migration, so the new one runs last.
const featureMigrations = readdirSync(join(ROOT, 'src/features'))
  .map((folder) => join(ROOT, 'src/features', folder, 'migrations'))
  .filter((folder) => existsSync(folder));
const stamps = [join(ROOT, 'src/platform/database/migrations'), ...featureMigrations]
  .flatMap((folder) => readdirSync(folder))
  .map((file) => Number(/^(\d{13})-/.exec(file)?.[1] ?? 0))
  .filter((stamp) => stamp > 0);
const stamp = Math.max(Date.now(), ...stamps.map((s) => s + 1000));
const migration = `Create${n.Plural}${stamp}`;

console.log(`new:module ${n.folder}: /v1/${n.group}, permissions ${n.group}:read and ${n.group}:write`);
for (const [path, text] of Object.entries(require('./new-module-templates')(n, stamp, migration))) write(path, text);

// The one shared list: a line of src/features.ts (merge=union, so another branch's line merges beside it). The
// permission catalogue, the data source, the app module and the route test find the module from it.
insertLine(
  'src/features.ts',
  /^export const FEATURES = \[$/,
  /^\] as const satisfies/,
  `  { folder: '${n.folder}', permissions: { '${n.group}:read': 'See ${n.words}', '${n.group}:write': 'Add ${n.words}' } },`,
);
// docs/feature-modules.md (merge=union too): the permissions rows (test/repository/permissions-documented.spec.ts
// compares them with src/features.ts), the APIs row and the layout line (test/repository/architecture-layout.spec.ts).
insertLine(
  'docs/feature-modules.md',
  /^<!-- generated: feature permissions /,
  /^$/,
  `| \`${n.group}:read\` | See ${n.words} |\n| \`${n.group}:write\` | Add ${n.words} |`,
);
insertLine(
  'docs/feature-modules.md',
  /^\| routes \| permission \| notes \|$/,
  /^$/,
  `| \`GET/POST /v1/${n.group}\` | \`${n.group}:read\` / \`${n.group}:write\` | ${n.words} of the company |`,
);
insertLine(
  'docs/feature-modules.md',
  /^src\/$/,
  /^```$/,
  `  ${`features/${n.folder}/`.padEnd(31)}  /v1/${n.group}: ${n.words} of the company (generated by new:module)`,
);
console.log('  registered in src/features.ts and docs/feature-modules.md (one line each per table)');
console.log('Next: docs/adding-a-feature-module.md, "2. Make it yours".');
