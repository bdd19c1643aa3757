#!/usr/bin/env node
/**
 * After the fast end-to-end files ran on PostgreSQL (test/support/sql-recorder.ts wrote what each sent): a file
 * named `*.any-database.*` runs on PostgreSQL only, which is honest only while every statement it sends is also
 * sent by a file that runs on both databases, so the embedded database answers that statement in some test too.
 * Prints, for each file that runs on both, how many statements only it sends: why it stays on both.
 */
const { readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function check(records) {
  const kind = (file) => (file.includes('.any-database.') ? 'once' : /-only\./.test(file) ? 'one' : 'both');
  const onBoth = new Map();
  for (const [file, shapes] of records) {
    if (kind(file) !== 'both') continue;
    for (const shape of shapes) onBoth.set(shape, [...(onBoth.get(shape) ?? []), file]);
  }
  const problems = [];
  for (const [file, shapes] of records) {
    if (kind(file) !== 'once') continue;
    const uncovered = shapes.filter((shape) => !onBoth.has(shape));
    if (uncovered.length > 0) {
      problems.push(
        `${file} sends SQL no file on both databases sends; run it on both:\n    ${uncovered.join('\n    ')}`,
      );
    }
  }
  const reasons = [...records]
    .filter(([file]) => kind(file) === 'both')
    .map(([file, shapes]) => [file, shapes.filter((shape) => onBoth.get(shape).length === 1).length])
    .sort((a, b) => b[1] - a[1]);
  return { problems, reasons };
}

function main() {
  const dir = join(tmpdir(), `staff-auth-sql-${process.env.JEST_RUN_ID ?? 'local'}`);
  let names;
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    console.error(`No SQL was recorded in ${dir}: run the e2e-postgres project first (npm test does).`);
    process.exit(1);
  }
  const records = new Map(
    names.map((name) => [name.slice(0, -'.json'.length), JSON.parse(readFileSync(join(dir, name), 'utf8'))]),
  );
  const expected = readdirSync(join(__dirname, '..', 'test')).filter((name) => name.includes('.any-database.'));
  const missing = expected.filter((name) => !records.has(name));
  const { problems, reasons } = check(records);
  for (const name of missing) problems.push(`${name} recorded no SQL: it did not run on PostgreSQL in this run`);
  console.log('Files on both databases, and the statements only each sends (why it runs on both):');
  for (const [file, only] of reasons) console.log(`  ${String(only).padStart(3)}  ${file}`);
  rmSync(dir, { recursive: true, force: true });
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log(`${expected.length} file(s) run on one database only, every statement they send also runs on both.`);
}

if (require.main === module) main();
module.exports = { check };
