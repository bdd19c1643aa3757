'use strict';
/**
 * `npm run bench`: the per-request cost of credential check, rate limit and permission check, as ratios to a
 * bare NestJS route on the same adapter measured in the same run. See bench/README.md.
 */
const { mkdtempSync, rmSync, writeFileSync, mkdirSync } = require('node:fs');
const { tmpdir, cpus, totalmem } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { startServer, startService, stop, killAll } = require('./lib/processes');
const {
  settings,
  EMAIL,
  PASSWORD,
  median,
  serviceEnv,
  json,
  seed,
  prepare,
  measure,
  summarize,
  measureRows,
  withFreshDatabase,
} = require('./lib/measure');
const { startCluster, startSentinel } = require('./lib/redis-topologies');
const { overrideRows } = require('./lib/override-rows');
const { signingRows, signingSummary } = require('./lib/signing-rows');

const runs = (section) => settings.only === null || settings.only.has(section);
// The service runs with RATE_LIMIT_SCALE=1000000; the peers get the same GET limit.
const SCALED_GET_LIMIT = String(30 * 1_000_000);
const FASTIFY_PEER = 'peer: Fastify + @fastify/jwt + @fastify/rate-limit, memory store';
const FASTIFY_REDIS_PEER = 'peer: Fastify + @fastify/jwt + @fastify/rate-limit, Redis store';
const NODE_HTTP_PEER = 'peer: node:http by hand (HS256 with node:crypto, leaky bucket in memory)';

/** A peer server (bench/peer-*.js) serving the same JSON; it issues its own token. */
function startPeer(script, body, env = {}) {
  return startServer(
    script,
    { PATH: process.env.PATH, PEER_BODY: body, PEER_LIMIT: SCALED_GET_LIMIT, ...env },
    { label: script },
  );
}

async function embeddedRows() {
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-bench-'));
  const env = serviceEnv({ DATA_DIR: dataDir, SEED_DEMO: 'false' });
  try {
    const companyId = await seed(env);
    const warm = await warmRows(env, companyId);
    // The same data directory (the embedded database admits one process at a time), the token already issued.
    const cold = runs('cold') ? await coldRows(env, warm.jwt, warm.bareBody) : [];
    return { rows: warm.rows, cold, products: warm.products };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function warmRows(env, companyId) {
  {
    const service = await startService(env, { label: 'service (embedded)' });
    try {
      const { jwt, apiKey, products } = await prepare(service.url, companyId);
      const me = await json(`${service.url}/v1/users/me`, { headers: { authorization: jwt } });
      const bareEnv = { PATH: process.env.PATH, BARE_BODY: JSON.stringify(me.body) };
      const bare = await startServer('bench/bare-app.js', bareEnv, { label: 'bare app' });
      const floor = await startServer(
        'bench/bare-app.js',
        { ...bareEnv, BARE_VARIANT: 'floor' },
        { label: 'floor app' },
      );
      const fastifyPeer = await startPeer('bench/peer-fastify.js', bareEnv.BARE_BODY);
      const nodePeer = await startPeer('bench/peer-node-http.js', bareEnv.BARE_BODY);
      try {
        const rows = [
          {
            name: 'baseline: bare NestJS route, same JSON',
            url: `${bare.url}/bare/me`,
            pid: bare.child.pid,
            baseline: true,
          },
          {
            name: 'floor: same route, 2 no-op guards, param decorator, pipe, same headers',
            url: `${floor.url}/v1/bare/me`,
            pid: floor.child.pid,
          },
          {
            name: 'GET /v1/users/me, JWT, memory store',
            url: `${service.url}/v1/users/me`,
            headers: { authorization: jwt },
            service: service.url,
            pid: service.child.pid,
          },
          {
            name: FASTIFY_PEER,
            url: `${fastifyPeer.url}/v1/users/me`,
            headers: { authorization: fastifyPeer.record.token },
            pid: fastifyPeer.child.pid,
          },
          {
            name: NODE_HTTP_PEER,
            url: `${nodePeer.url}/v1/users/me`,
            headers: { authorization: nodePeer.record.token },
            pid: nodePeer.child.pid,
          },
          {
            name: 'GET /v1/users/me, API key, memory store',
            url: `${service.url}/v1/users/me`,
            headers: { authorization: apiKey },
            service: service.url,
            pid: service.child.pid,
          },
        ];
        if (products) {
          rows.push({
            name: 'GET /v1/products (20 records), JWT',
            url: `${service.url}/v1/products?per_page=20`,
            headers: { authorization: jwt },
            service: service.url,
            pid: service.child.pid,
          });
        }
        const measured = await measureRows(rows);
        const logins = await measureRows([
          {
            name: 'POST /v1/users/authenticatefinish (logins/s)',
            url: `${service.url}/v1/users/authenticatefinish`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: EMAIL, password: PASSWORD, company_id: companyId }),
            service: service.url,
            pid: service.child.pid,
          },
        ]);
        return { rows: [...measured, ...logins], products, jwt, bareBody: bareEnv.BARE_BODY };
      } finally {
        await bare.stop();
        await floor.stop();
        await fastifyPeer.stop();
        await nodePeer.stop();
      }
    } finally {
      await service.stop();
    }
  }
}

/**
 * Cold start: each round starts a fresh process and measures it at once, with no warm-up, the bare route and
 * the service alike (the service with a token it has never seen). The cold/warm ratio of the bare route is
 * what any Node server pays for its JIT; the service should not pay much more than that.
 */
async function coldRows(env, jwt, bareBody) {
  const samples = { bare: [], service: [] };
  for (let round = 0; round < settings.rounds; round++) {
    process.stderr.write(`  round ${round + 1}/${settings.rounds}: cold starts\n`);
    const bare = await startServer(
      'bench/bare-app.js',
      { PATH: process.env.PATH, BARE_BODY: bareBody },
      { label: 'bare app' },
    );
    try {
      samples.bare.push(await measure({ url: `${bare.url}/bare/me`, pid: bare.child.pid }, { cold: true }));
    } finally {
      await bare.stop();
    }
    const service = await startService(env, { label: 'service (cold)' });
    try {
      const job = {
        url: `${service.url}/v1/users/me`,
        headers: { authorization: jwt },
        service: service.url,
        pid: service.child.pid,
      };
      samples.service.push(await measure(job, { cold: true }));
    } finally {
      await service.stop();
    }
  }
  return [
    summarize({ name: 'cold: bare NestJS route, fresh process, no warm-up' }, samples.bare, samples.bare),
    summarize(
      { name: 'cold: GET /v1/users/me, JWT, memory store, fresh process, no warm-up', service: true },
      samples.service,
      samples.bare,
    ),
  ];
}

/** A counter already over its limit: the real limits (scale 1), one token hammering one counter. */
async function limitedRows() {
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-bench-'));
  const env = serviceEnv({ DATA_DIR: dataDir, SEED_DEMO: 'false', RATE_LIMIT_SCALE: '1' });
  try {
    const companyId = await seed(env);
    const service = await startService(env, { label: 'service (limited)' });
    const bare = await startServer('bench/bare-app.js', { PATH: process.env.PATH }, { label: 'bare app' });
    try {
      const login = await json(`${service.url}/v1/users/authenticatefinish`, {
        method: 'POST',
        body: { email: EMAIL, password: PASSWORD, company_id: companyId },
      });
      return await measureRows([
        { name: 'baseline again (for the 429 row)', url: `${bare.url}/bare/me`, pid: bare.child.pid, baseline: true },
        {
          name: '429 path (counter over its limit), JWT',
          url: `${service.url}/v1/users/me`,
          headers: { authorization: login.body.jwt },
          service: service.url,
          pid: service.child.pid,
        },
      ]);
    } finally {
      await bare.stop();
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** PostgreSQL + Redis: the Redis-backed limiter, and how fast a logout reaches a second instance. */
async function sharedRows(baseline) {
  return withFreshDatabase(settings.databaseUrl, async (databaseUrl) => {
    const env = serviceEnv({
      DATABASE_URL: databaseUrl,
      REDIS_URL: settings.redisUrl,
      REDIS_KEY_PREFIX: `bench-${randomBytes(3).toString('hex')}:`,
    });
    const companyId = await seed(env);
    const a = await startService(env, { label: 'instance A' });
    const b = await startService(env, { label: 'instance B' });
    // The same route on Redis Sentinel and on Redis Cluster (servers of this run's own), in the same rounds as
    // the single server and the Fastify peer on the same Redis, so the ratios compare within one run.
    const sentinel = await startSentinel();
    const cluster = await startCluster();
    const onSentinel = await startService({ ...env, REDIS_URL: sentinel.url }, { label: 'instance on Sentinel' });
    const onCluster = await startService({ ...env, REDIS_URL: cluster.url }, { label: 'instance on Cluster' });
    let peer;
    try {
      const { jwt } = await prepare(a.url, companyId);
      const me = await json(`${a.url}/v1/users/me`, { headers: { authorization: jwt } });
      peer = await startPeer('bench/peer-fastify.js', JSON.stringify(me.body), { REDIS_URL: settings.redisUrl });
      const row = (name, service) => ({
        name,
        url: `${service.url}/v1/users/me`,
        headers: { authorization: jwt },
        service: service.url,
        pid: service.child.pid,
      });
      const rows = await measureRows([
        { name: 'baseline again (for the Redis rows)', url: baseline.url, pid: baseline.pid, baseline: true },
        row('GET /v1/users/me, JWT, Redis store (PostgreSQL)', a),
        {
          name: FASTIFY_REDIS_PEER,
          url: `${peer.url}/v1/users/me`,
          headers: { authorization: peer.record.token },
          pid: peer.child.pid,
        },
        row('GET /v1/users/me, JWT, Redis Sentinel store (PostgreSQL)', onSentinel),
        row('GET /v1/users/me, JWT, Redis Cluster store (PostgreSQL)', onCluster),
      ]);
      const revocation = await revocationLatency(a.url, b.url, companyId);
      return { rows, revocation };
    } finally {
      await peer?.stop();
      await stop(a.child);
      await stop(b.child);
      await stop(onSentinel.child);
      await stop(onCluster.child);
      sentinel.stop();
      cluster.stop();
    }
  });
}

/** From the start of a logout on A to the first request on B that is refused, B having cached the token. */
async function revocationLatency(aUrl, bUrl, companyId) {
  const samples = [];
  let refusedAtOnce = 0;
  for (let i = 0; i < 20; i++) {
    const login = await json(`${aUrl}/v1/users/authenticatefinish`, {
      method: 'POST',
      body: { email: EMAIL, password: PASSWORD, company_id: companyId },
    });
    const jwt = login.body.jwt;
    await json(`${bUrl}/v1/users/me`, { headers: { authorization: jwt } });
    const started = performance.now();
    await json(`${aUrl}/v1/users/logout`, { method: 'POST', headers: { authorization: jwt } });
    let attempts = 0;
    for (;;) {
      attempts++;
      const res = await json(`${bUrl}/v1/users/me`, { headers: { authorization: jwt } });
      if (res.status === 400) break;
      if (performance.now() - started > 5000) throw new Error('B never refused the logged-out token');
    }
    if (attempts === 1) refusedAtOnce++;
    samples.push(performance.now() - started);
  }
  return { medianMs: median(samples), maxMs: Math.max(...samples), refusedAtOnce, of: samples.length };
}

function storageMicroBenchmarks() {
  const { execFileSync } = require('node:child_process');
  return execFileSync(process.execPath, ['--expose-gc', 'bench/rate-limit-storage.bench.js'], {
    env: { ...process.env, ...(settings.redisUrl ? { REDIS_URL: settings.redisUrl } : {}) },
    encoding: 'utf8',
    timeout: 300_000,
  });
}

const percent = (ratio) => `${(ratio * 100).toFixed(1)} %`;

function table(rows, baselineRps) {
  const lines = [
    '| row | req/s (min–max) | server CPU µs/request | p50 ms | p99 ms | vs baseline, same rounds (min–max) | DB queries/request | statuses |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const rps = `${Math.round(row.rps).toLocaleString('en')} (${row.rpsRange.map((v) => Math.round(v).toLocaleString('en')).join('–')})`;
    const ratio =
      row.ratio === null
        ? `${percent(row.rps / baselineRps)} (other rounds)`
        : `${percent(row.ratio)} (${row.ratioRange.map(percent).join('–')})`;
    lines.push(
      `| ${row.name} | ${rps} | ${row.cpuUsPerRequest === null ? '-' : row.cpuUsPerRequest.toFixed(1)} | ${row.p50} | ${row.p99} | ` +
        `${ratio} | ${row.queriesPerRequest === null ? '-' : row.queriesPerRequest.toFixed(3)} | ` +
        `${Object.entries(row.statuses)
          .map(([code, count]) => `${code}: ${count}`)
          .join(', ')} |`,
    );
  }
  return lines.join('\n');
}

/** Cold against warm, for the bare route and the service: what a fresh process loses in its first run. */
function coldSummary(warmRowsList, cold) {
  if (cold.length === 0) return [];
  const warmBare = warmRowsList.find((row) => row.name.startsWith('baseline:'));
  const warmService = warmRowsList.find((row) => row.name === 'GET /v1/users/me, JWT, memory store');
  if (!warmBare || !warmService) return [];
  const [coldBare, coldService] = cold;
  return [
    `Cold / warm (median req/s of fresh processes measured with no warm-up, against the warm rows above): ` +
      `bare route ${percent(coldBare.rps / warmBare.rps)}, service ${percent(coldService.rps / warmService.rps)}; ` +
      `server CPU per request cold ${coldService.cpuUsPerRequest?.toFixed(1)} µs vs warm ${warmService.cpuUsPerRequest?.toFixed(1)} µs.`,
    '',
  ];
}

/** Median of per-round req/s ratios of two rows measured in the same rounds. */
function pairRatio(row, other) {
  if (!row || !other) return null;
  return median(row.runs.map((run, i) => run.rps / other.runs[i].rps));
}

/** Each goal of the issue as a ratio measured in this run, and whether it was met. */
function goals(embedded, limited, shared, storage) {
  const named = (rows, name) => rows.find((row) => row.name === name);
  const service = named(embedded.rows, 'GET /v1/users/me, JWT, memory store');
  const lines = [];
  const goal = (label, value, target, text = value === null ? 'not measured' : value.toFixed(2)) =>
    lines.push(
      `| ${label} | ${text} | ${target} | ${value === null ? '-' : value >= Number(target.split(' ')[1]) ? 'met' : 'NOT met'} |`,
    );
  goal('service / Fastify native, memory', pairRatio(service, named(embedded.rows, FASTIFY_PEER)), '≥ 1.10');
  goal(
    'service / Fastify native, Redis',
    shared
      ? pairRatio(
          named(shared.rows, 'GET /v1/users/me, JWT, Redis store (PostgreSQL)'),
          named(shared.rows, FASTIFY_REDIS_PEER),
        )
      : null,
    '≥ 1.10',
  );
  goal('service / node:http by hand', pairRatio(service, named(embedded.rows, NODE_HTTP_PEER)), '≥ 0.90');
  goal(
    'service / floor',
    pairRatio(
      service,
      embedded.rows.find((row) => row.name.startsWith('floor:')),
    ),
    '≥ 0.90',
  );
  const tooMany = limited.find((row) => row.name.startsWith('429'));
  goal(
    '200 CPU / 429 CPU per request',
    tooMany && service ? service.cpuUsPerRequest / tooMany.cpuUsPerRequest : null,
    '≥ 1.00',
  );
  const coldService = embedded.cold[1];
  goal('cold / warm (service)', coldService && service ? coldService.rps / service.rps : null, '≥ 0.90');
  const difference = /difference (-?[\d.]+) µs per request/.exec(storage)?.[1];
  lines.push(
    `| leaky bucket − fixed window, µs per decision | ${difference ?? 'not measured'} | ≤ 2 | ${difference === undefined ? '-' : Number(difference) <= 2 ? 'met' : 'NOT met'} |`,
  );
  return ['| goal | measured | target | |', '|---|---|---|---|', ...lines].join('\n');
}

async function main() {
  const started = new Date();
  process.stderr.write(
    `bench: ${settings.rounds} rounds × ${settings.duration} s, ${settings.connections} connections\n`,
  );
  const embedded = runs('embedded') ? await embeddedRows() : { rows: [], cold: [], products: false };
  const baseline = embedded.rows[0]?.rps ?? NaN;
  const limited = runs('limited') ? await limitedRows() : [];
  let shared = null;
  if (runs('shared') && settings.databaseUrl && settings.redisUrl) {
    const bare = await startServer('bench/bare-app.js', { PATH: process.env.PATH }, { label: 'bare app' });
    try {
      shared = await sharedRows({ url: `${bare.url}/bare/me`, pid: bare.child.pid });
    } finally {
      await bare.stop();
    }
  }
  let overridden = [];
  if (runs('overrides')) {
    const bare = await startServer('bench/bare-app.js', { PATH: process.env.PATH }, { label: 'bare app' });
    try {
      overridden = await overrideRows({ url: `${bare.url}/bare/me`, pid: bare.child.pid });
    } finally {
      await bare.stop();
    }
  }
  let signing = null;
  if (runs('signing')) {
    const bare = await startServer('bench/bare-app.js', { PATH: process.env.PATH }, { label: 'bare app' });
    try {
      signing = await signingRows({ url: `${bare.url}/bare/me`, pid: bare.child.pid });
    } finally {
      await bare.stop();
    }
  }
  const storage = runs('storage') ? storageMicroBenchmarks() : '(skipped)';

  const report = [
    `# Benchmark ${started.toISOString()}`,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    `Load: autocannon in a separate process, ${settings.connections} connections, ${settings.duration} s per run ` +
      `after ${settings.warmup} s of warm-up (cold rows: none), ${settings.rounds} interleaved rounds; figures are medians, ` +
      `ratios the median of per-round ratios to the baseline measured in the same round. ` +
      `Services in production mode, LOG_LEVEL=warn.`,
    `argon2id cost for logins: 19456 KiB, 2 passes, 1 lane (the defaults).`,
    '',
    table(
      [
        ...embedded.rows,
        ...embedded.cold,
        ...limited,
        ...(shared ? shared.rows : []),
        ...overridden,
        ...(signing ? signing.rows : []),
      ],
      baseline,
    ),
    '',
    ...signingSummary(signing),
    ...coldSummary(embedded.rows, embedded.cold),
    '## Goals (issue 15), as ratios within this run',
    '',
    goals(embedded, limited, shared, storage),
    '',
    shared
      ? `Revocation seen by a second instance (PostgreSQL + Redis), from the start of the logout on A to B's refusal: ` +
        `median ${shared.revocation.medianMs.toFixed(1)} ms, max ${shared.revocation.maxMs.toFixed(1)} ms; ` +
        `B refused on its first request after the logout in ${shared.revocation.refusedAtOnce}/${shared.revocation.of} rounds.`
      : 'PostgreSQL + Redis rows skipped: set DATABASE_URL and REDIS_URL (or BENCH_DATABASE_URL, BENCH_REDIS_URL).',
    '',
    '## Rate-limit storages',
    '',
    '```',
    storage.trim(),
    '```',
    '',
  ].join('\n');
  process.stdout.write(`${report}\n`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.md', report);
}

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
main().catch((error) => {
  killAll();
  process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
