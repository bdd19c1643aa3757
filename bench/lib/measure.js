'use strict';
/**
 * What bench/run.js and bench/compare-builds.js share: the settings, seeding a service and logging in, and the
 * measurement itself (autocannon in a process of its own, the server's CPU time per request, rows interleaved
 * in rounds with ratios taken within a round).
 */
const { readFileSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { cliAt, load } = require('./processes');

const settings = {
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  databaseUrl: process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL,
  redisUrl: process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL,
  /** Sections to run, comma-separated (embedded, cold, limited, shared, overrides, storage); all by default. */
  only: process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null,
};
const PASSWORD = 'bench password, long enough';
const EMAIL = 'bench@example.test';

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The environment of a service under test: production mode, limits scaled out of the way, logs quiet. */
function serviceEnv(overrides) {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_SCALE: '1000000',
    // The concurrency cap still takes and returns a lease on every request (in Redis, in the bucket's script), but
    // never refuses the 50 connections of one credential: 429s are cheaper than answers and would flatter a build.
    CONCURRENCY_LIMIT: '1000000',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
}

async function json(url, { method = 'GET', headers = {}, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc (Linux); null elsewhere. System time
 * counts: a response's loopback send is kernel work the server pays for.
 */
function cpuMsSoFar(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return null;
  }
}
// USER_HZ is 100 on every Linux this runs on (`getconf CLK_TCK`).
const CLOCK_TICK_MS = 10;

async function queriesSoFar(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^db_queries_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** One company and one employee holding `*` in it, through the operator CLI of the build under `root`. */
async function seed(env, root = '.') {
  const cli = (...args) => cliAt(root, env, ...args);
  const company = await cli('company:create', '--name', 'Bench Co');
  await cli('employee:create', '--email', EMAIL, '--password', PASSWORD, '--name', 'Bench');
  await cli('membership:add', '--email', EMAIL, '--company', String(company.id), '--permissions', '*');
  return company.id;
}

async function prepare(url, companyId) {
  const login = await json(`${url}/v1/users/authenticatefinish`, {
    method: 'POST',
    body: { email: EMAIL, password: PASSWORD, company_id: companyId },
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  const jwt = login.body.jwt;
  const key = await json(`${url}/v1/apikeys`, {
    method: 'POST',
    headers: { authorization: jwt },
    body: { name: 'bench', permissions: ['users:read', 'products:read'] },
  });
  let products = false;
  for (let i = 0; i < 20; i++) {
    const created = await json(`${url}/v1/products`, {
      method: 'POST',
      headers: { authorization: jwt },
      body: { name: `Product ${i}`, sku: `SKU-${i}`, price: 1000 + i },
    });
    products = created.status === 201;
    if (!products) break;
  }
  return { jwt, apiKey: key.body.api_key, products };
}

/**
 * Warm-up (unless `cold`), then one measured run; with the server's CPU time per request and the database
 * statements the service sent during it.
 */
async function measure(job, { cold = false } = {}) {
  if (!cold && settings.warmup > 0)
    await load({ ...job, duration: settings.warmup, connections: settings.connections });
  const before = job.service ? await queriesSoFar(job.service) : NaN;
  const cpuBefore = job.pid ? cpuMsSoFar(job.pid) : null;
  const result = await load({ ...job, duration: settings.duration, connections: settings.connections });
  const cpuAfter = job.pid ? cpuMsSoFar(job.pid) : null;
  const after = job.service ? await queriesSoFar(job.service) : NaN;
  return {
    ...result,
    cpuUsPerRequest:
      cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1000) / Math.max(1, result.total),
    queriesPerRequest: job.service ? (after - before) / Math.max(1, result.total) : null,
  };
}

/** One row's figures: medians of its runs, and its ratio to the baseline as the median of per-round ratios. */
function summarize(row, runs, baselineRuns) {
  const ratios = baselineRuns ? runs.map((run, i) => run.rps / baselineRuns[i].rps) : null;
  const cpu = runs.map((r) => r.cpuUsPerRequest).filter((value) => value !== null);
  return {
    name: row.name,
    rps: median(runs.map((r) => r.rps)),
    rpsRange: [Math.min(...runs.map((r) => r.rps)), Math.max(...runs.map((r) => r.rps))],
    cpuUsPerRequest: cpu.length ? median(cpu) : null,
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    ratio: ratios ? median(ratios) : null,
    ratioRange: ratios ? [Math.min(...ratios), Math.max(...ratios)] : null,
    statuses: runs[runs.length - 1].statuses,
    queriesPerRequest: row.service ? median(runs.map((r) => r.queriesPerRequest)) : null,
    runs,
  };
}

/**
 * Rounds interleave the rows, so drift on the machine touches the baseline and the rows alike; each row's
 * ratio is taken within a round (against `rows[0]` when it is marked `baseline`), then the median of those.
 */
async function measureRows(rows) {
  const samples = new Map(rows.map((row) => [row.name, []]));
  for (let round = 0; round < settings.rounds; round++) {
    for (const row of rows) {
      process.stderr.write(`  round ${round + 1}/${settings.rounds}: ${row.name}\n`);
      samples.get(row.name).push(await measure(row));
    }
  }
  const baselineRuns = rows[0].baseline ? samples.get(rows[0].name) : null;
  return rows.map((row) => summarize(row, samples.get(row.name), baselineRuns));
}

/** Runs `work` with the URL of a database of its own on that server, dropped afterwards (`prefix_<random>`). */
async function withFreshDatabase(serverUrl, work, prefix = 'staff_auth_bench') {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

module.exports = {
  withFreshDatabase,
  settings,
  EMAIL,
  PASSWORD,
  median,
  serviceEnv,
  json,
  cpuMsSoFar,
  seed,
  prepare,
  measure,
  summarize,
  measureRows,
};
