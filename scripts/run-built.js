#!/usr/bin/env node
'use strict';
/**
 * Runs a compiled entry point (`node scripts/run-built.js dist/src/cli/main.js [args...]`), compiling first only
 * when the build is missing or older than its sources. An operator command then starts in well under a second
 * instead of waiting for the compiler on every call.
 *
 * "Current" is judged per file: every `src/**.ts` (and `ormconfig.ts`) must have its `.js` in `dist/` at least as
 * new as itself. The build is incremental, so only changed files are re-emitted, and a whole-build stamp would
 * miss nothing more than this check does. Changed compiler settings also rebuild.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, rmSync, statSync } = require('node:fs');
const { join, relative, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const DIST = join(ROOT, 'dist');
const NOT_BUILT = /\.(spec|contract)\.ts$|\.d\.ts$/;

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !NOT_BUILT.test(entry.name)) yield path;
  }
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** The first reason to rebuild, or null when the build is current. */
function staleBecause() {
  const buildInfo = mtime(join(DIST, '.tsbuildinfo'));
  if (buildInfo < 0) return 'no complete build yet';
  for (const config of ['tsconfig.json', 'tsconfig.build.json']) {
    if (mtime(join(ROOT, config)) > buildInfo) return `${config} changed`;
  }
  for (const source of [...sources(join(ROOT, 'src')), join(ROOT, 'ormconfig.ts')]) {
    const output = join(DIST, relative(ROOT, source)).replace(/\.ts$/, '.js');
    if (mtime(output) < mtime(source)) return `${relative(ROOT, source)} is newer than its build`;
  }
  return null;
}

function ensureBuild() {
  const reason = staleBecause();
  if (reason === null) return;
  // Standard error: standard output carries only the command's own result.
  process.stderr.write(`building (${reason})...\n`);
  const tsc = require.resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
  if (build.status !== 0) {
    // tsc emits even when it reports errors; forgetting the build info makes the next call try again rather
    // than run what failed to compile.
    rmSync(join(DIST, '.tsbuildinfo'), { force: true });
    process.stderr.write('error: the build failed; see the compiler output above\n');
    process.exit(build.status ?? 1);
  }
}

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run-built.js <compiled entry> [args...]\n');
  process.exit(2);
}
ensureBuild();
const target = resolve(ROOT, entry);
if (!existsSync(target)) {
  process.stderr.write(`error: ${entry} does not exist after the build\n`);
  process.exit(1);
}
// The entry reads its arguments from process.argv, as if it had been started directly.
process.argv = [process.argv[0], target, ...args];
require(target);
