#!/usr/bin/env node
/**
 * The folder rules, checked in `npm test` (npm run lint:deps). Reads the import graph of src/ and admin/src/
 * from dependency-cruiser (rules in .dependency-cruiser.cjs: no cycles, the service not importing its tests or
 * the page, the page importing only browser-safe service modules) and adds the two rules it cannot express:
 *   - no two folders src/<a> and src/<b> importing each other (the files directly in src/ — main.ts,
 *     app.module.ts, core.module.ts — are the composition root that wires the folders, not a folder);
 *   - no file in src/ or admin/src/ over 250 lines, unit specs included.
 * Prints the three counts on one line, then each violation; exits 1 when there is any.
 * Runs on the current directory, so a test can point it at a fixture.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { folderCycles, tablesOutsideOwner } = require('./table-owners');

const MAX_LINES = 250;

const REPO = join(__dirname, '..');

function cruise(paths) {
  const bin = join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
  const config = join(REPO, '.dependency-cruiser.cjs');
  // Exit status is the number of violations; the JSON on stdout is complete either way.
  let out;
  try {
    out = execFileSync(process.execPath, [bin, ...paths, '--config', config, '--output-type', 'json'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    if (!error.stdout) throw error;
    out = error.stdout;
  }
  return JSON.parse(out);
}

/** `src/<a>` for a file inside a folder of src/, null for the composition root and everything else. */
function folderOf(file) {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : null;
}

/** `from to` for every import from one folder of src/ into another, unit specs left out. */
function folderEdges(modules) {
  const edges = new Set();
  for (const module of modules) {
    // A unit spec beside the code is a test, not part of the folder's dependencies.
    if (module.source.endsWith('.spec.ts')) continue;
    const from = folderOf(module.source);
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (from && to && from !== to) edges.add(`${from} ${to}`);
    }
  }
  return edges;
}

function mutualFolders(edges) {
  return [...edges]
    .map((edge) => edge.split(' '))
    .filter(([a, b]) => a < b && edges.has(`${b} ${a}`))
    .map(([a, b]) => `no-mutual-folders: ${a} ⇄ ${b}`);
}

function longFiles(modules) {
  return modules
    .filter((module) => /^(src|admin\/src)\/.*\.tsx?$/.test(module.source) && existsSync(module.source))
    .filter((module) => readFileSync(module.source, 'utf8').split('\n').length - 1 > MAX_LINES)
    .map((module) => `max-file-lines: ${module.source}`);
}

function ruleViolations(summary) {
  return summary.violations.map((violation) =>
    violation.cycle
      ? `${violation.rule.name}: ${[violation.from, ...violation.cycle.map((step) => step.name)].join(' → ')}`
      : `${violation.rule.name}: ${violation.from} → ${violation.to}`,
  );
}

function main() {
  const paths = ['src', 'admin/src'].filter((path) => existsSync(path));
  const { modules, summary } = cruise(paths);
  const long = longFiles(modules);
  const edges = folderEdges(modules);
  const mutual = mutualFolders(edges);
  const folderLoops = folderCycles(edges).map((cycle) => `no-folder-cycle: ${cycle.join(' → ')}`);
  const tables = tablesOutsideOwner(modules.map((module) => module.source).filter((file) => existsSync(file)));
  const rules = ruleViolations(summary);
  const cycles = rules.filter((line) => line.startsWith('no-circular:'));
  const all = [...rules, ...mutual, ...folderLoops, ...tables, ...long];
  console.log(
    `files over ${MAX_LINES} lines: ${long.length}, folder pairs importing each other: ${mutual.length}, ` +
      `folder cycles (any length): ${folderLoops.length}, tables named outside their owner: ${tables.length}, ` +
      `cycles: ${cycles.length}, other import rule violations: ${rules.length - cycles.length} ` +
      `(${summary.totalCruised} files, ${summary.totalDependenciesCruised} imports)`,
  );
  for (const line of all) console.log(`  error ${line}`);
  process.exitCode = all.length > 0 ? 1 : 0;
}

main();
