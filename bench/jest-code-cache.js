'use strict';
/**
 * What test/support/code-cache-runtime.js saves: the same end-to-end files run in one jest worker (as each of
 * `npm test`'s two workers runs its share), with jest's own runtime (JEST_CODE_CACHE=0) and with the code cache,
 * alternated round by round in one run. Prints each run's wall time and the ratio of the medians.
 *
 *   node bench/jest-code-cache.js            # 12 files on PostgreSQL, 3 rounds
 *   JEST_CACHE_ROUNDS=3 JEST_CACHE_FILES='test/(products|orders)\.' node bench/jest-code-cache.js
 */
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { median } = require('./lib/measure');

const ROOT = join(__dirname, '..');
const ROUNDS = Number(process.env.JEST_CACHE_ROUNDS ?? 3);
const FILES =
  process.env.JEST_CACHE_FILES ??
  'test/(errors|no-store|products|orders|users-create-existing|roles|totp|invitations|company-takeover|' +
    'account-password|rate-limit-credentials|token-introspection)\\.';

function once(cache, round) {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/jest/bin/jest.js'),
      '--selectProjects',
      'e2e-postgres',
      '--runInBand',
      '--testPathPatterns',
      FILES,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        JEST_CODE_CACHE: cache ? '1' : '0',
        JEST_RUN_ID: `code-cache-${process.pid}-${cache ? 'on' : 'off'}-${round}`,
        NODE_OPTIONS: '--experimental-vm-modules --disable-warning=ExperimentalWarning',
      },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const tests = /^Tests:\s+(.+)$/m.exec(result.stderr)?.[1] ?? 'no summary';
  if (result.status !== 0)
    throw new Error(`jest failed (cache ${cache ? 'on' : 'off'}):\n${result.stderr.slice(-3000)}`);
  process.stdout.write(`round ${round}, code cache ${cache ? 'on ' : 'off'}: ${seconds.toFixed(1)} s (${tests})\n`);
  return seconds;
}

const off = [];
const on = [];
for (let round = 1; round <= ROUNDS; round++) {
  off.push(once(false, round));
  on.push(once(true, round));
}
process.stdout.write(
  `median: jest's runtime ${median(off).toFixed(1)} s, with the code cache ${median(on).toFixed(1)} s (${(median(on) / median(off)).toFixed(3)} of it)\n`,
);
