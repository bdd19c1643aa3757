'use strict';
/**
 * `npm run bench:compare`: two builds of the service measured in ONE run, so a change's cost is a ratio taken
 * on the same machine in the same minutes rather than two runs set side by side (issue 19: "no slower than before
 * the restructuring").
 *
 *   BASE=<git rev>     checked out with `git worktree add --detach` into a temporary directory, node_modules
 *                      symlinked from this checkout, built there (`npm run -s build`), removed afterwards
 *   BASE_ROOT=<dir>    or: a checkout already built; its dist/ runs as is
 *   NEW_ROOT=<dir>     the other build; this checkout by default (`npm run bench:compare` builds it first)
 *
 * Rows: GET /v1/users/me with a JWT on each build (embedded database, memory store, a database of its own for
 * each), and the bare NestJS route of bench/bare-app.js as the machine's reference. Rounds interleave them
 * (base, new, bare, base, new, bare, ...); `new / base` is the median of the per-round ratios. BENCH_DURATION,
 * BENCH_WARMUP, BENCH_ROUNDS and BENCH_CONNECTIONS apply as for `npm run bench`. COMPARE_REDIS=<redis url> adds a
 * section with both builds' counters in that Redis (a key prefix each), measured in the same rounds.
 */
const { execFileSync } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join, resolve } = require('node:path');
const { randomBytes } = require('node:crypto');
const { startServer, startService, killAll } = require('./lib/processes');
const { settings, median, serviceEnv, json, seed, prepare, measureRows, summarize } = require('./lib/measure');
const { baseBuild, requireBuild } = require('./lib/base-build');

const HERE = resolve(__dirname, '..');

function currentRev(root) {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: root,
      encoding: 'utf8',
    });
    return `${commit}${dirty.trim() ? ' + uncommitted changes' : ''}`;
  } catch {
    return root;
  }
}

/**
 * A build's service on an embedded database of its own, seeded, with a JWT issued by it; with `redisUrl`, its
 * counters in that Redis under a key prefix of its own.
 */
async function startBuild(label, root, dataDirs, redisUrl) {
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-compare-'));
  dataDirs.push(dataDir);
  const redis = redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `compare-${randomBytes(4).toString('hex')}:` } : {};
  const env = serviceEnv({ DATA_DIR: dataDir, SEED_DEMO: 'false', ...redis });
  const companyId = await seed(env, root);
  const service = await startService(env, { label, root });
  const { jwt } = await prepare(service.url, companyId);
  return { service, jwt };
}

const ratioOf = (a, b, pick) => median(a.runs.map((run, i) => pick(run) / pick(b.runs[i])));
const format = (value, digits = 0) => (value === null ? '-' : value.toFixed(digits));

/** One section's lines: its rows, then new ÷ base and each build ÷ the bare route. */
function section(title, baseRow, newRow, bareRow) {
  const cpuRatio = baseRow.cpuUsPerRequest === null ? null : ratioOf(newRow, baseRow, (r) => r.cpuUsPerRequest);
  return [
    `## ${title}`,
    '',
    '| row | req/s (min–max) | server CPU µs/request | p99 ms | statuses |',
    '|---|---|---|---|---|',
    ...[baseRow, newRow, bareRow].map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rps)} (${r.rpsRange.map(Math.round).join('–')}) | ${format(r.cpuUsPerRequest, 1)} | ` +
        `${r.p99} | ${Object.entries(r.statuses)
          .map(([code, count]) => `${code}: ${count}`)
          .join(', ')} |`,
    ),
    '',
    `new / base, req/s: ${format(newRow.ratio, 3)} (per round ${newRow.ratioRange.map((v) => v.toFixed(3)).join('–')}); ` +
      `server CPU µs/request: ${format(cpuRatio, 3)} (below 1: the new build is cheaper).`,
    `each build / bare route, req/s: base ${format(
      ratioOf(baseRow, bareRow, (r) => r.rps),
      3,
    )}, new ${format(
      ratioOf(newRow, bareRow, (r) => r.rps),
      3,
    )}.`,
    '',
  ];
}

async function main() {
  const base = baseBuild(HERE);
  const newRoot = requireBuild(resolve(process.env.NEW_ROOT ?? HERE));
  // COMPARE_REDIS=<redis url> adds both builds with their counters in Redis, measured in the same rounds.
  const redisUrl = process.env.COMPARE_REDIS;
  const dataDirs = [];
  const started = [];
  try {
    const a = await startBuild('base service', base.root, dataDirs);
    const b = await startBuild('new service', newRoot, dataDirs);
    started.push(a.service, b.service);
    const ra = redisUrl ? await startBuild('base service, Redis', base.root, dataDirs, redisUrl) : null;
    const rb = redisUrl ? await startBuild('new service, Redis', newRoot, dataDirs, redisUrl) : null;
    if (ra && rb) started.push(ra.service, rb.service);
    const me = await json(`${b.service.url}/v1/users/me`, { headers: { authorization: b.jwt } });
    const bare = await startServer(
      'bench/bare-app.js',
      { PATH: process.env.PATH, BARE_BODY: JSON.stringify(me.body) },
      { label: 'bare app' },
    );
    started.push(bare);
    const row = (name, build) => ({
      name,
      url: `${build.service.url}/v1/users/me`,
      headers: { authorization: build.jwt },
      service: build.service.url,
      pid: build.service.child.pid,
    });
    const newRev = currentRev(newRoot);
    const rows = await measureRows([
      { ...row(`base ${base.rev}: GET /v1/users/me, JWT`, a), baseline: true },
      row(`new ${newRev}: GET /v1/users/me, JWT`, b),
      { name: 'bare NestJS route, same JSON', url: `${bare.url}/bare/me`, pid: bare.child.pid },
      ...(ra && rb
        ? [
            row(`base ${base.rev}: GET /v1/users/me, JWT, Redis counters`, ra),
            row(`new ${newRev}: GET /v1/users/me, JWT, Redis counters`, rb),
          ]
        : []),
    ]);
    const [baseRow, newRow, bareRow, baseRedis, newRedis] = rows;
    // measureRows gives each row's ratio against the first row; the Redis section's new row is set against its base.
    if (newRedis) Object.assign(newRedis, summarize(newRedis, newRedis.runs, baseRedis.runs));
    const report = [
      `# Build comparison ${new Date().toISOString()}`,
      '',
      `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${settings.rounds} interleaved rounds ` +
        `× ${settings.duration} s after ${settings.warmup} s of warm-up, ${settings.connections} connections; medians.`,
      '',
      ...section('Memory counters', baseRow, newRow, bareRow),
      ...(newRedis ? section(`Redis counters (${redisUrl})`, baseRedis, newRedis, bareRow) : []),
    ].join('\n');
    process.stdout.write(`${report}\n`);
    mkdirSync(join(HERE, 'bench', 'results'), { recursive: true });
    writeFileSync(join(HERE, 'bench', 'results', 'compare-latest.md'), report);
  } finally {
    for (const server of started) await server.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    base.done();
  }
}

main().catch((error) => {
  killAll();
  process.stderr.write(`compare failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
