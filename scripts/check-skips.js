#!/usr/bin/env node
'use strict';
/**
 * `node scripts/check-skips.js <jest-json-report> [allow-list]`: exits 1, listing them, when the report (from
 * `jest --json --outputFile=…`) holds a skipped or todo test that test/skip-allow-list.json does not allow. A new
 * skip (a missing browser, a case left for one database, an `it.skip` left behind) then fails CI instead of
 * passing unnoticed among the green ones. `.ci/run` runs it under `CI=true`.
 *
 * The allow-list is a JSON array of `{ "name": <the test's full name>, "reason": <why it may skip> }`; every
 * entry needs a reason. An entry that no longer skips is fine (the test runs); the list should stay short.
 */
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');

const DEFAULT_ALLOW_LIST = resolve(__dirname, '..', 'test', 'skip-allow-list.json');
/** Jest's statuses of a test that did not run: `it.skip`/`describe.skip` ("pending", "skipped"), `it.todo`. */
const NOT_RUN = new Set(['pending', 'skipped', 'todo', 'disabled']);

/** The allow-list's names; throws when it is not an array of entries each with a name and a reason. */
function allowedNames(list) {
  if (!Array.isArray(list)) throw new Error('the skip allow-list must be a JSON array');
  return new Set(
    list.map((entry, index) => {
      const ok =
        entry &&
        typeof entry.name === 'string' &&
        entry.name &&
        typeof entry.reason === 'string' &&
        entry.reason.trim();
      if (!ok) throw new Error(`skip allow-list entry ${index} needs a "name" and a "reason"`);
      return entry.name;
    }),
  );
}

/** Every skipped or todo test of a jest JSON report that the allow-list does not name: `{ file, name, status }`. */
function unexpectedSkips(report, allowList) {
  if (!report || !Array.isArray(report.testResults)) throw new Error('not a jest --json report (no testResults)');
  const allowed = allowedNames(allowList);
  const found = [];
  for (const suite of report.testResults) {
    for (const test of suite.assertionResults ?? []) {
      const name = test.fullName ?? [...(test.ancestorTitles ?? []), test.title].join(' ');
      if (NOT_RUN.has(test.status) && !allowed.has(name)) found.push({ file: suite.name, name, status: test.status });
    }
  }
  return found;
}

function main(argv) {
  const [reportPath, allowListPath = DEFAULT_ALLOW_LIST] = argv;
  if (!reportPath) {
    process.stderr.write('usage: node scripts/check-skips.js <jest-json-report> [allow-list.json]\n');
    return 2;
  }
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  const skips = unexpectedSkips(report, JSON.parse(readFileSync(allowListPath, 'utf8')));
  if (skips.length === 0) {
    process.stdout.write('check-skips: no skipped or todo test outside the allow-list\n');
    return 0;
  }
  process.stderr.write(`check-skips: ${skips.length} skipped or todo test(s) not in ${allowListPath}:\n`);
  for (const skip of skips) process.stderr.write(`  [${skip.status}] ${skip.name}\n    in ${skip.file}\n`);
  return 1;
}

module.exports = { unexpectedSkips };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`check-skips: ${error.message}\n`);
    process.exitCode = 2;
  }
}
