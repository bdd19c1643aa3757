/**
 * Which end-to-end files are system tests: the ones that start another process (the built service, the CLI, a
 * Redis, HAProxy, PgBouncer, dnsmasq or Chromium), found from what they import, not listed by hand. jest.config.js
 * puts them in projects of their own that run after the fast ones, so a red fast test fails CI in minutes; a
 * fast file that starts a process anyway is stopped by test/support/no-child-processes.ts.
 */
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const TEST_DIR = join(ROOT, 'test');
/** Modules through which a file starts another process. */
const PROCESS_MODULES = /from '(node:child_process|child_process|playwright-core)'/;
const RELATIVE_IMPORT = /from '(\.{1,2}\/[^']+)'/g;

function resolveLocal(from, specifier) {
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, `${base}.js`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** Whether a test file, or a test helper it imports (transitively, under test/), starts a process. */
function startsProcesses(file, seen = new Map()) {
  if (seen.has(file)) return seen.get(file);
  seen.set(file, false);
  const source = readFileSync(file, 'utf8');
  let result = PROCESS_MODULES.test(source);
  for (const match of source.matchAll(RELATIVE_IMPORT)) {
    if (result) break;
    const target = resolveLocal(file, match[1]);
    if (target && target.startsWith(TEST_DIR)) result = startsProcesses(target, seen);
  }
  seen.set(file, result);
  return result;
}

function e2eFiles() {
  return readdirSync(TEST_DIR)
    .filter((name) => name.endsWith('.e2e-spec.ts'))
    .map((name) => join(TEST_DIR, name));
}

/** The unit specs beside the code (src/, scripts/, client/src/). */
function unitFiles() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(path);
      else if (entry.name.endsWith('.spec.ts')) found.push(path);
    }
  };
  for (const dir of ['src', 'scripts', join('client', 'src')]) walk(join(ROOT, dir));
  return found;
}

/** The end-to-end files that start processes. */
function systemFiles() {
  const seen = new Map();
  return e2eFiles().filter((file) => startsProcesses(file, seen));
}

/** The unit specs that start processes (a Redis server, Sentinel, Cluster, a script): integration specs. */
function systemUnitFiles() {
  const seen = new Map();
  return unitFiles().filter((file) => startsProcesses(file, seen));
}

/** A jest path pattern matching exactly these files. */
function patternFor(files) {
  const names = files.map((file) => file.slice(ROOT.length + 1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return names.length === 0 ? '^$' : `/(${names.join('|')})$`;
}

module.exports = { e2eFiles, unitFiles, systemFiles, systemUnitFiles, patternFor, startsProcesses };
