#!/usr/bin/env node
/**
 * The layout rules, checked in `npm test` (npm run lint:deps). Reads the import graph of src/ and admin/src/
 * from dependency-cruiser (rules in .dependency-cruiser.cjs: no file cycles, the service not importing its tests
 * or the page, the page importing only browser-safe service modules) and adds the rules it cannot express:
 *   - src/ is areas (src/areas.json, lowest first) of modules (src/<area>/<module>/): every folder of src/ is a
 *     listed area and every file of an area sits in one of its modules;
 *   - no back-edge: a module imports only its own area and the areas before it;
 *   - no two modules importing each other, and no loop of modules of any length;
 *   - the composition root (the files directly in src/: main.ts, app.module.ts, …) wires the areas; an area may
 *     import a root file only when that file imports nothing of src/ (plain data such as src/features.ts);
 *   - each table named only in its owner module (scripts/table-owners.js);
 *   - SQL fragments (a module's `*-sql.ts`, which statements of its area join through) never leave their area:
 *     another area asks the owner's records functions, so no statement outside an area reads that area's tables;
 *   - no file in src/ or admin/src/ over 250 lines, unit specs included.
 * Prints the counts on one line, then each violation; exits 1 when there is any.
 * Runs on the current directory, so a test can point it at a fixture.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { areaOf, moduleOf, readAreas } = require('./areas');
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

/** `from to` for every import from one module of src/ into another, unit specs left out. */
function moduleEdges(modules) {
  const edges = new Set();
  for (const module of modules) {
    // A unit spec beside the code is a test, not part of the folder's dependencies.
    if (module.source.endsWith('.spec.ts')) continue;
    const from = moduleOf(module.source);
    for (const dependency of module.dependencies) {
      const to = moduleOf(dependency.resolved);
      if (from && to && from !== to) edges.add(`${from} ${to}`);
    }
  }
  return edges;
}

function mutualModules(edges) {
  return [...edges]
    .map((edge) => edge.split(' '))
    .filter(([a, b]) => a < b && edges.has(`${b} ${a}`))
    .map(([a, b]) => `no-mutual-modules: ${a} ⇄ ${b}`);
}

/** Folders of src/ that are no listed area, and files of an area outside any module. */
function misplaced(modules, areas) {
  const found = new Set();
  for (const { source } of modules) {
    if (!source.startsWith('src/') || source.split('/').length < 3) continue;
    const area = areaOf(source);
    if (!areas.includes(area)) found.add(`unknown-area: src/${area}/ is not in src/areas.json`);
    else if (source.split('/').length === 3) found.add(`file-outside-module: ${source} (put it in a module folder)`);
  }
  return [...found];
}

/** Imports from an area into a later one (src/areas.json order), each module pair once. */
function backEdges(edges, areas) {
  const rank = (module) => areas.indexOf(module.split('/')[1]);
  return [...edges]
    .map((edge) => edge.split(' '))
    .filter(([from, to]) => rank(from) >= 0 && rank(to) > rank(from))
    .map(([from, to]) => `no-back-edge: ${from} → ${to} (${to.split('/')[1]} comes after ${from.split('/')[1]})`);
}

/** Imports from an area into a root file that itself imports src/ (the root wires areas; they do not call it). */
function rootImports(modules) {
  const importsSrc = new Map(
    modules.map((module) => [module.source, module.dependencies.some((d) => d.resolved.startsWith('src/'))]),
  );
  const found = [];
  for (const module of modules) {
    if (module.source.endsWith('.spec.ts') || !moduleOf(module.source)) continue;
    for (const { resolved } of module.dependencies) {
      if (resolved.startsWith('src/') && !moduleOf(resolved) && importsSrc.get(resolved))
        found.push(`no-root-import: ${module.source} → ${resolved}`);
    }
  }
  return found;
}

/** Imports of a `*-sql.ts` file (SQL fragments) from a module of another area. */
function fragmentsAcrossAreas(modules) {
  const found = [];
  for (const module of modules) {
    if (module.source.endsWith('.spec.ts') || !moduleOf(module.source)) continue;
    for (const { resolved } of module.dependencies) {
      if (/-sql\.ts$/.test(resolved) && moduleOf(resolved) && areaOf(resolved) !== areaOf(module.source))
        found.push(
          `no-sql-fragment-across-areas: ${module.source} → ${resolved} (ask ${moduleOf(resolved)}'s records)`,
        );
    }
  }
  return found;
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
  const areas = readAreas();
  const { modules, summary } = cruise(paths);
  const long = longFiles(modules);
  const edges = moduleEdges(modules);
  const mutual = mutualModules(edges);
  const moduleLoops = folderCycles(edges).map((cycle) => `no-module-cycle: ${cycle.join(' → ')}`);
  const back = backEdges(edges, areas);
  const layout = [...misplaced(modules, areas), ...rootImports(modules)];
  const moduleCount = new Set(modules.map((module) => moduleOf(module.source)).filter(Boolean)).size;
  const tables = tablesOutsideOwner(modules.map((module) => module.source).filter((file) => existsSync(file)));
  const fragments = fragmentsAcrossAreas(modules);
  const rules = ruleViolations(summary);
  const cycles = rules.filter((line) => line.startsWith('no-circular:'));
  const all = [...rules, ...layout, ...back, ...mutual, ...moduleLoops, ...tables, ...fragments, ...long];
  console.log(
    `files over ${MAX_LINES} lines: ${long.length}, module pairs importing each other: ${mutual.length}, ` +
      `module cycles (any length): ${moduleLoops.length}, back-edges between areas: ${back.length}, ` +
      `misplaced files and root imports: ${layout.length}, tables named outside their owner: ${tables.length}, ` +
      `SQL fragments outside their area: ${fragments.length}, ` +
      `cycles: ${cycles.length}, other import rule violations: ${rules.length - cycles.length} ` +
      `(${areas.length} areas, ${moduleCount} modules, ${summary.totalCruised} files, ` +
      `${summary.totalDependenciesCruised} imports)`,
  );
  for (const line of all) console.log(`  error ${line}`);
  process.exitCode = all.length > 0 ? 1 : 0;
}

main();
