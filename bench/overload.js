'use strict';
/**
 * `npm run bench:overload` (not part of CI): issue 38's overload run against docs/contract.md, "Shedding load".
 * A built instance on an embedded database of its own; reads (GET /v1/products with a JWT) first measured closed
 * loop for what the instance serves, then sent at three times that rate by autocannon in a process of its own,
 * while this process sends a steady 10 logins and 10 logouts per second. Prints the logins' and logouts' success
 * rate and p99, the shed answers' p99, and what was shed per priority (http_requests_shed_total), against the
 * contract's goals: logins and logouts ≥ 99 % successful with p99 < 1 s, shed answers p99 < 50 ms.
 *
 * OVERLOAD_DURATION (s, default 40), OVERLOAD_FACTOR (3), OVERLOAD_CONNECTIONS (300), and the instance's bounds
 * OVERLOAD_MAX_IN_FLIGHT (48) and OVERLOAD_MAX_EVENT_LOOP_DELAY_MS (100, the service's default) tune it.
 * OVERLOAD_DATABASE_URL (a PostgreSQL server where it may create a database) runs the instance on a database of
 * its own there instead: production's setting, where a query's work is the server's, not the service's loop;
 * OVERLOAD_REDIS_URL gives the instance Redis counters (under a key prefix of its own).
 * OVERLOAD_GENERATOR_NICE (0) runs the flood's generator at that nice value (1-19): in production the flood's
 * clients are other machines, and here the generator takes the cores the instance would have had.
 */
const { execFile } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const { setPriority, tmpdir } = require('node:os');
const { join } = require('node:path');
const { promisify } = require('node:util');
const { startService, killAll, load } = require('./lib/processes');
const { serviceEnv, seed, prepare, withFreshDatabase, EMAIL, PASSWORD } = require('./lib/measure');

const run = promisify(execFile);
const DURATION = Number(process.env.OVERLOAD_DURATION ?? 40);
const FACTOR = Number(process.env.OVERLOAD_FACTOR ?? 3);
const CONNECTIONS = Number(process.env.OVERLOAD_CONNECTIONS ?? 300);
// 48: room for about 39 reads in flight on the embedded database's one session (a turn of the loop that drains
// them stays well under the shed answers' 50 ms), and for 5 more logins or logouts before a login is shed.
const MAX_IN_FLIGHT = process.env.OVERLOAD_MAX_IN_FLIGHT ?? '48';
// The service's default (100) unless set.
const MAX_DELAY_MS = process.env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS ?? '100';
const PER_SECOND = 10;
const DATABASE_SERVER = process.env.OVERLOAD_DATABASE_URL;
const REDIS_URL = process.env.OVERLOAD_REDIS_URL;
const GENERATOR_NICE = Number(process.env.OVERLOAD_GENERATOR_NICE ?? 0);

const p99 = (values) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
};
const ms = (value) => (Number.isNaN(value) ? '-' : `${Math.round(value)} ms`);
const percent = (part, whole) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(2)} %`);

async function shedSoFar(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts = {};
  for (const match of text.matchAll(/^http_requests_shed_total\{priority="(\w+)"\} (\d+)$/gm))
    counts[match[1]] = Number(match[2]);
  return counts;
}

/** One request, timed; `ok` by status. Never throws: a timeout or a reset is a failure with its name. */
async function timed(url, init, okStatus) {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return { ok: response.status === okStatus, status: String(response.status), ms: performance.now() - started };
  } catch (error) {
    return { ok: false, status: error.name ?? 'error', ms: performance.now() - started };
  }
}

const loginInit = (companyId) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: EMAIL, password: PASSWORD, company_id: companyId }),
});

/** The instance on the embedded database in a folder of its own, or on a database of its own on that server. */
async function main() {
  if (DATABASE_SERVER) {
    await withFreshDatabase(DATABASE_SERVER, (url) => overload({ DATABASE_URL: url }), 'staff_auth_overload');
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-overload-'));
  try {
    await overload({ DATA_DIR: dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function overload(database) {
  const env = serviceEnv({
    ...database,
    ...(REDIS_URL ? { REDIS_URL, REDIS_KEY_PREFIX: `overload-${randomBytes(4).toString('hex')}:` } : {}),
    SEED_DEMO: 'false',
    SHED_MAX_IN_FLIGHT: MAX_IN_FLIGHT,
    SHED_MAX_EVENT_LOOP_DELAY_MS: MAX_DELAY_MS,
  });
  const companyId = await seed(env);
  const service = await startService(env, {
    label: 'service (overload)',
    nodeArgs: process.env.OVERLOAD_NODE_ARGS ? process.env.OVERLOAD_NODE_ARGS.split(' ') : [],
  });
  try {
    const { jwt } = await prepare(service.url, companyId);
    const read = { url: `${service.url}/v1/products`, headers: { authorization: jwt } };

    // Sessions for the logouts, opened before the overload, four at a time.
    const sessions = [];
    const needed = PER_SECOND * DURATION + 20;
    while (sessions.length < needed) {
      const batch = await Promise.all(
        Array.from({ length: 4 }, () => fetch(`${service.url}/v1/users/authenticatefinish`, loginInit(companyId))),
      );
      for (const response of batch) {
        if (response.status !== 200) throw new Error(`login before the run: ${response.status}`);
        sessions.push((await response.json()).jwt);
      }
    }

    // What the instance serves: closed loop, few enough connections that nothing is shed.
    await load({ ...read, connections: 16, duration: 3 });
    const closed = await load({ ...read, connections: 16, duration: 5 });
    const capacity = (closed.statuses['200'] ?? 0) / 5;
    const rate = Math.round(capacity * FACTOR);

    const shedBefore = await shedSoFar(service.url);
    const flood = run(
      process.execPath,
      [
        join(__dirname, 'lib/overload-reads.js'),
        JSON.stringify({ ...read, overallRate: rate, connections: CONNECTIONS, duration: DURATION }),
      ],
      { timeout: (DURATION + 60) * 1000, maxBuffer: 256 * 1024 * 1024 },
    );
    if (GENERATOR_NICE !== 0) setPriority(flood.child.pid, GENERATOR_NICE);
    // The steady logins and logouts, open loop: one of each every 100 ms, whatever the answers take.
    const logins = [];
    const logouts = [];
    // A few of the flood's reads sent by this process too: the flood's generator takes a core of its own and
    // times its answers late when it waits for one; this process sends 30 requests a second and is not busy.
    const probes = [];
    let next = 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const started = performance.now();
    await new Promise((resolve) => {
      const timer = setInterval(() => {
        if (performance.now() - started >= (DURATION - 2) * 1000) {
          clearInterval(timer);
          resolve();
          return;
        }
        logins.push(timed(`${service.url}/v1/users/authenticatefinish`, loginInit(companyId), 200));
        const token = sessions[next++];
        logouts.push(
          timed(`${service.url}/v1/users/logout`, { method: 'POST', headers: { authorization: token } }, 204),
        );
        probes.push(timed(read.url, { headers: read.headers }, 200));
      }, 1000 / PER_SECOND);
    });
    const [loginResults, logoutResults, probeResults, reads] = await Promise.all([
      Promise.all(logins),
      Promise.all(logouts),
      Promise.all(probes),
      flood.then(({ stdout }) => JSON.parse(stdout.trim().split('\n').pop())),
    ]);
    const shedAfter = await shedSoFar(service.url);
    report({ capacity, rate, loginResults, logoutResults, probeResults, reads, shedBefore, shedAfter });
  } finally {
    await service.stop();
  }
}

/** The reads this process sent among the flood's: the shed ones' p99 as a client with a core to spare sees it. */
function probeRow(results) {
  const shed = results.filter((result) => result.status === '503').map((result) => result.ms);
  const served = results.filter((result) => result.ok).length;
  const others = results.length - shed.length - served;
  return `| reads from the steady client (10/s) | ${results.length} | - | shed: ${ms(p99(shed))} | - | | 503: ${shed.length}, 200: ${served}${others ? `, other: ${others}` : ''} |`;
}

function report({ capacity, rate, loginResults, logoutResults, probeResults, reads, shedBefore, shedAfter }) {
  const statuses = (results) => {
    const counts = {};
    for (const { status } of results) counts[status] = (counts[status] ?? 0) + 1;
    return Object.entries(counts)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
  };
  const row = (name, results) => {
    const succeeded = results.filter((result) => result.ok).length;
    const latency = p99(results.map((result) => result.ms));
    const met = succeeded >= 0.99 * results.length && latency < 1000;
    return `| ${name} | ${results.length} | ${percent(succeeded, results.length)} | ${ms(latency)} | ≥ 99 %, p99 < 1 s | ${met ? 'met' : 'missed'} | ${statuses(results)} |`;
  };
  const shed = reads.latencies['503'] ?? [];
  const served = reads.latencies['200'] ?? [];
  const answered = Object.values(reads.latencies).reduce((sum, list) => sum + list.length, 0);
  const shedP99 = p99(shed);
  const others =
    [
      ...Object.entries(reads.latencies)
        .filter(([status]) => status !== '200' && status !== '503')
        .map(([status, list]) => `${status}: ${list.length}`),
      reads.errors ? `errors: ${reads.errors}` : '',
      reads.timeouts ? `timeouts: ${reads.timeouts}` : '',
    ]
      .filter(Boolean)
      .join(', ') || 'no other answer, no error';
  const lines = [
    `Overload (issue 38), ${DATABASE_SERVER ? 'PostgreSQL' : 'embedded database'}${REDIS_URL ? ' + Redis' : ''}: GET /v1/products at ${FACTOR} × what the instance serves (${Math.round(capacity)} req/s closed loop → ${rate} req/s offered, ${CONNECTIONS} connections), plus ${PER_SECOND} logins and ${PER_SECOND} logouts per second, ${DURATION} s; SHED_MAX_IN_FLIGHT=${MAX_IN_FLIGHT}, SHED_MAX_EVENT_LOOP_DELAY_MS=${MAX_DELAY_MS}${GENERATOR_NICE ? `; the flood's generator at nice ${GENERATOR_NICE}` : ''}`,
    '',
    '| requests | sent | success | p99 | goal | | answers |',
    '|---|---|---|---|---|---|---|',
    row('logins (POST /v1/users/authenticatefinish)', loginResults),
    row('logouts (POST /v1/users/logout)', logoutResults),
    `| reads shed (503) | ${shed.length} of ${answered} read answers | - | ${ms(shedP99)} | p99 < 50 ms | ${shedP99 < 50 ? 'met' : 'missed'} | ${others} |`,
    `| reads served (200) | ${served.length} (${Math.round(served.length / DURATION)} req/s) | - | ${ms(p99(served))} | - | | |`,
    probeRow(probeResults),
    '',
    `Shed per priority (http_requests_shed_total during the run): ${['health', 'revocation', 'sign_in', 'read', 'write']
      .map((priority) => `${priority} ${(shedAfter[priority] ?? 0) - (shedBefore[priority] ?? 0)}`)
      .join(', ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  killAll();
  process.exit(1);
});
