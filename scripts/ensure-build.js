#!/usr/bin/env node
'use strict';
/**
 * Decides whether the build in `dist/` is current, and rebuilds only what is not: the service (tsc) and the
 * administration page (Vite). `npm start` runs it as `prestart` (`node scripts/ensure-build.js`), so a start on
 * an unchanged tree takes well under a second instead of rebuilding both (12-15 s); scripts/run-built.js uses
 * it for the operator commands, which need the service's build only.
 *
 * "Current" for the service is judged per file: every `src/**.ts` (and `ormconfig.ts`) must have its `.js` in
 * `dist/` at least as new as itself. The build is incremental, so only changed files are re-emitted, and a
 * whole-build stamp would miss nothing more than this check does. Changed compiler settings also rebuild.
 * For the page, `dist/admin/index.html` (Vite empties the folder first, so an interrupted build leaves none)
 * must be at least as new as every file under `admin/` and as package-lock.json (the page bundles its
 * dependencies).
 */
const { spawnSync } = require('node:child_process');
const { readdirSync, rmSync, statSync } = require('node:fs');
const { join, relative, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const NOT_BUILT = /\.(spec|contract)\.ts$|\.d\.ts$/;

function* files(dir, keep) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path, keep);
    else if (keep(entry.name)) yield path;
  }
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** The first reason to rebuild the service, or null when its build is current. */
function serverStaleBecause(root = ROOT) {
  const dist = join(root, 'dist');
  const buildInfo = mtime(join(dist, '.tsbuildinfo'));
  if (buildInfo < 0) return 'no complete build yet';
  for (const config of ['tsconfig.json', 'tsconfig.build.json']) {
    if (mtime(join(root, config)) > buildInfo) return `${config} changed`;
  }
  const sources = files(join(root, 'src'), (name) => name.endsWith('.ts') && !NOT_BUILT.test(name));
  for (const source of [...sources, join(root, 'ormconfig.ts')]) {
    const output = join(dist, relative(root, source)).replace(/\.ts$/, '.js');
    if (mtime(output) < mtime(source)) return `${relative(root, source)} is newer than its build`;
  }
  return null;
}

/** The first reason to rebuild the administration page, or null when its build is current. */
function adminStaleBecause(root = ROOT) {
  const built = mtime(join(root, 'dist', 'admin', 'index.html'));
  if (built < 0) return 'the administration page is not built yet';
  for (const source of [...files(join(root, 'admin'), () => true), join(root, 'package-lock.json')]) {
    if (mtime(source) > built) return `${relative(root, source)} is newer than the administration page`;
  }
  return null;
}

function run(what, args, onFailure) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (result.status === 0) return;
  onFailure?.();
  process.stderr.write(`error: the ${what} build failed; see the output above\n`);
  process.exit(result.status ?? 1);
}

/**
 * Brings `dist/` up to date: the service always, the administration page when `admin` is set. Progress goes to
 * standard error, so standard output carries only the command's own result.
 */
function ensureBuild({ admin = false } = {}) {
  const server = serverStaleBecause();
  if (server !== null) {
    process.stderr.write(`building the service (${server})...\n`);
    run('service', [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], () =>
      // tsc emits even when it reports errors; forgetting the build info makes the next call try again rather
      // than run what failed to compile.
      rmSync(join(ROOT, 'dist', '.tsbuildinfo'), { force: true }),
    );
  }
  const page = admin ? adminStaleBecause() : null;
  if (page !== null) {
    process.stderr.write(`building the administration page (${page})...\n`);
    const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
    run('administration page', [vite, 'build', '--config', join(ROOT, 'admin', 'vite.config.mts')]);
  }
}

module.exports = { serverStaleBecause, adminStaleBecause, ensureBuild };

if (require.main === module) ensureBuild({ admin: true });
