#!/usr/bin/env node
'use strict';
/**
 * Runs a compiled entry point (`node scripts/run-built.js dist/src/cli.js [args...]`), compiling first only
 * when the build is missing or older than its sources. An operator command then starts in well under a second
 * instead of waiting for the compiler on every call.
 *
 * Whether the build is current is decided in one place, scripts/ensure-build.js, which `npm start` uses too.
 */
const { existsSync } = require('node:fs');
const { resolve } = require('node:path');
const { ensureBuild } = require('./ensure-build');

const ROOT = resolve(__dirname, '..');

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
