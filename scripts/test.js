#!/usr/bin/env node
/**
 * `npm test`: every check CI runs, in phases, each timed.
 *   1. checks: type-check, lint, dependency rules, the OpenAPI lint (after a build) and the unit specs at size
 *      (`heap`: nothing there holds a deadline), two at a time;
 *   2. fast: unit, repository and the end-to-end files that run in this process, then the rule that a file run
 *      on one database only sends no SQL the files run on both do not;
 *   3. system: the end-to-end files that start other processes (test/support/suite-kinds.js).
 * A failed phase stops the run, so a red fast test fails in minutes. Arguments after `--` go to jest; with
 * `--outputFile=F` (and `--json`) the phases' reports are merged into F, as one jest run would have written it.
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const NODE_OPTIONS = '--experimental-vm-modules --disable-warning=ExperimentalWarning';
const JEST = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

const jestArgs = process.argv.slice(2);
const outputArg = jestArgs.find((arg) => arg.startsWith('--outputFile='));
const passThrough = jestArgs.filter((arg) => arg !== outputArg && arg !== '--json');
const reportDir = mkdtempSync(join(tmpdir(), 'staff-auth-test-'));
process.env.JEST_RUN_ID ??= `${process.pid}-${Date.now().toString(36)}`;

const times = [];

function run(label, command, args, env = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      times.push(`${label} ${seconds} s`);
      process.stdout.write(`\n== ${label}: ${code === 0 ? 'passed' : `failed (${signal ?? code})`} in ${seconds} s\n`);
      resolve(code === 0);
    });
  });
}

const npm = (script) => ['npm', ['run', '-s', script]];

/** Runs the tasks, at most `lanes` at once; true when all passed. */
async function inLanes(lanes, tasks) {
  const queue = [...tasks];
  const results = [];
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let task = queue.shift(); task; task = queue.shift()) results.push(await task());
    }),
  );
  return results.every(Boolean);
}

function jest(label, projects) {
  const report = join(reportDir, `${label}.json`);
  const args = [JEST, '--selectProjects', ...projects, '--json', `--outputFile=${report}`, ...passThrough];
  return run(`jest ${label}`, process.execPath, args, { NODE_OPTIONS });
}

function mergeReports() {
  const reports = [];
  for (const label of ['heap', 'fast', 'system']) {
    try {
      reports.push(JSON.parse(readFileSync(join(reportDir, `${label}.json`), 'utf8')));
    } catch {
      // a phase that did not run
    }
  }
  if (reports.length === 0) return undefined;
  const merged = { ...reports[0], testResults: [] };
  for (const key of Object.keys(reports[0])) {
    if (key.startsWith('num')) merged[key] = reports.reduce((sum, report) => sum + (report[key] ?? 0), 0);
  }
  merged.success = reports.every((report) => report.success);
  merged.testResults = reports.flatMap((report) => report.testResults);
  return merged;
}

async function main() {
  const started = Date.now();
  let ok = await inLanes(2, [
    () => run('type-check', ...npm('typecheck')),
    () => run('build + OpenAPI lint', ...npm('lint:openapi')),
    () => run('lint', ...npm('lint')),
    () => run('dependency rules', ...npm('lint:deps')),
    () => jest('heap', ['heap']),
  ]);
  if (ok) ok = await jest('fast', ['unit', 'repository', 'e2e-embedded', 'e2e-postgres']);
  if (ok) ok = await run('database coverage', process.execPath, ['scripts/check-database-coverage.js']);
  if (ok) ok = await jest('system', ['system-unit', 'system-embedded', 'system-postgres']);

  const merged = mergeReports();
  if (outputArg && merged) writeFileSync(outputArg.slice('--outputFile='.length), JSON.stringify(merged));
  rmSync(reportDir, { recursive: true, force: true });
  const total = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(`\n== npm test ${ok ? 'passed' : 'FAILED'} in ${total} s: ${times.join(', ')}\n`);
  process.exit(ok ? 0 : 1);
}

main();
