'use strict';
/**
 * The audit trail at size (issue 16), on PostgreSQL (DATABASE_URL names the server; a database of its own is
 * created and dropped):
 *
 * 1. 1,000,000 events across 100 companies (generate_series), then GET /v1/auditevents: p50/p99 per query
 *    shape (goal: p99 ≤ 20 ms).
 * 2. 1,000,000 more events past AUDIT_RETENTION_DAYS; the retention job (AuditRetention.runOnce, the code the
 *    service runs hourly and `audit:purge` runs at once) deletes them while three clients keep requesting (a
 *    listing, an API key creation that inserts an event, /v1/users/me), each request timed, and
 *    pg_stat_activity is sampled for sessions waiting on a lock (goal: no request waits > 50 ms on the job).
 *
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:audit`
 * (AUDIT_BENCH_EVENTS changes the 1,000,000.)
 */
const { randomBytes } = require('node:crypto');
require('reflect-metadata');
const { Client } = require('pg');
const { DataSource } = require('typeorm');
const { AuditRetention } = require('../dist/src/audit/recorder/audit-retention.service');
const { SystemClock } = require('../dist/src/platform/common/clock/clock');
const { loadConfig } = require('../dist/src/platform/config/app-config');
const { dataSourceOptions } = require('../dist/src/data-source');
const { startService, cli, killAll } = require('./lib/processes');

const EVENTS = Number(process.env.AUDIT_BENCH_EVENTS ?? 1_000_000);
const COMPANIES = 100;
const EMAIL = 'bench-owner@audit.example';
const PASSWORD = 'bench-password-123';

const TYPES = [
  'login.succeeded',
  'login.failed',
  'token.refreshed',
  'session.logged_out',
  'company.switched',
  'permissions.changed',
  'apikey.created',
  'membership.added',
];

function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const fmt = (value) => value.toFixed(1);
  return {
    n: sorted.length,
    p50: fmt(percentile(sorted, 50)),
    p99: fmt(percentile(sorted, 99)),
    max: fmt(sorted[sorted.length - 1]),
  };
}

async function timed(url, init) {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${res.status}: ${body.slice(0, 200)}`);
  return { ms, body: body ? JSON.parse(body) : null };
}

/** `count` requests from `concurrency` clients; the latency of each. */
async function measure(count, concurrency, request) {
  const latencies = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        latencies.push((await request()).ms);
      }
    }),
  );
  return latencies;
}

/** Events at `now - offset - g * step` for g in 1..n, spread over the companies, actors, subjects and types. */
function fill(db, n, offsetSeconds, stepSeconds) {
  return db.query(
    `INSERT INTO audit_events (company_id, occurred_at, type, actor_kind, actor_id, actor_email, subject_kind,
                               subject_id, subject_email, session_id, ip, user_agent, details)
     SELECT c.ids[1 + g % $2], now() - make_interval(secs => $3 + g * $4::double precision),
            (ARRAY[${TYPES.map((t) => `'${t}'`).join(', ')}])[1 + (g / 7) % ${TYPES.length}],
            'employee', (10000 + g % 40)::text, 'person' || (g % 40) || '@bench.example',
            'employee', (20000 + g % 53)::text, 'subject' || (g % 53) || '@bench.example',
            NULL, '203.0.113.' || (g % 250), 'bench-agent/1.0', jsonb_build_object('n', g)
       FROM generate_series(1, $1::int) AS g,
            (SELECT array_agg(id ORDER BY id) AS ids FROM company) AS c`,
    [n, COMPANIES, offsetSeconds, stepSeconds],
  );
}

/** The listing's statement as AuditEventsService sends it, timed by PostgreSQL itself (no network, no Node). */
async function serverSide(db, companyId) {
  const select = `SELECT id, company_id, occurred_at, type, actor_kind, actor_id, actor_email, subject_kind, subject_id,
                         subject_email, session_id, ip, user_agent, details,
                         (extract(epoch FROM occurred_at) * 1000000)::bigint::text AS micros
                    FROM audit_events WHERE company_id = $1`;
  const order = 'ORDER BY occurred_at DESC, id DESC LIMIT 51';
  const { rows: middle } = await db.query(
    `SELECT (extract(epoch FROM occurred_at) * 1000000)::bigint::text AS micros, id FROM audit_events
      WHERE company_id = $1 ORDER BY occurred_at DESC, id DESC OFFSET 5000 LIMIT 1`,
    [companyId],
  );
  const shapes = [
    ['newest 50', `${select} ${order}`, [companyId]],
    ['type=login.failed', `${select} AND type = ANY($2::text[]) ${order}`, [companyId, ['login.failed']]],
    ['actor_id', `${select} AND actor_id = $2 ${order}`, [companyId, '10007']],
    [
      'cursor, 5,000 events deep',
      `${select} AND (occurred_at, id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::bigint) ${order}`,
      [companyId, middle[0].micros, middle[0].id],
    ],
  ];
  const result = [];
  for (const [query, sql, parameters] of shapes) {
    const times = [];
    let plan = '';
    for (let i = 0; i < 20; i++) {
      const { rows } = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters);
      const [explained] = rows[0]['QUERY PLAN'];
      times.push(explained['Execution Time']);
      plan = explained.Plan.Plans?.[0]?.['Index Name'] ?? explained.Plan['Node Type'];
    }
    const sorted = times.sort((a, b) => a - b);
    result.push({ query, 'execution ms (median)': sorted[10].toFixed(3), index: plan });
  }
  return result;
}

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server (the bench creates its own database)');
  const name = `staff_auth_audit_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    JWT_SECRET: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_SCALE: '1000000',
    SEED_DEMO: 'false',
    AUDIT_RETENTION_DAYS: '365',
  };
  let service;
  const db = new Client({ connectionString: databaseUrl });
  try {
    // The CLI applies the migrations and makes the owner; 99 more companies straight in SQL.
    const company = await cli(env, 'company:create', '--name', 'Bench Co 1');
    await cli(env, 'employee:create', '--email', EMAIL, '--password', PASSWORD);
    await cli(env, 'membership:add', '--email', EMAIL, '--company', String(company.id), '--permissions', '*');
    await db.connect();
    await db.query(`INSERT INTO company (name) SELECT 'Bench Co ' || g FROM generate_series(2, $1::int) AS g`, [
      COMPANIES,
    ]);

    let started = Date.now();
    await fill(db, EVENTS, 60, (300 * 86400) / EVENTS);
    await db.query('VACUUM ANALYZE audit_events');
    console.log(
      `filled ${EVENTS.toLocaleString('en')} events across ${COMPANIES} companies in ${Date.now() - started} ms`,
    );

    // The service's own hourly run (a minute after its start) would take the job's advisory lock and make the
    // measured run below stop early, as a second instance should: so the service keeps its events forever here.
    service = await startService({ ...env, AUDIT_RETENTION_DAYS: '0' }, { label: 'service' });
    const login = await timed(`${service.url}/v1/users/authenticatefinish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD, company_id: company.id }),
    });
    const auth = { authorization: login.body.jwt };
    const get = (query) => timed(`${service.url}/v1/auditevents${query}`, { headers: auth });

    // Warm-up, then each query shape (2 clients).
    await measure(300, 2, () => get('?limit=50'));
    const deep = [];
    let cursor = null;
    for (let page = 0; page < 40; page++) {
      const res = await get(`?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      deep.push(res.ms);
      cursor = res.body.next_cursor;
    }
    const since = new Date(Date.now() - 30 * 86400_000).toISOString();
    const until = new Date(Date.now() - 20 * 86400_000).toISOString();
    const shapes = [
      ['newest 50', '?limit=50'],
      ['newest 100', '?limit=100'],
      ['type=login.failed', '?type=login.failed'],
      ['type=a&type=b', '?type=login.failed&type=apikey.created'],
      ['actor_id', '?actor_id=10007'],
      ['subject_id + type', '?subject_id=20011&type=permissions.changed'],
      ['since/until (10 days)', `?since=${since}&until=${until}`],
      ['page 2 (cursor)', `?limit=50&cursor=${encodeURIComponent(cursor)}`],
    ];
    const rows = [];
    for (const [label, query] of shapes)
      rows.push({ query: label, ...summary(await measure(1000, 2, () => get(query))) });
    rows.push({ query: 'pages 1–40 of 100, following next_cursor', ...summary(deep) });
    console.log(`\nGET /v1/auditevents with ${EVENTS.toLocaleString('en')} events (${COMPANIES} companies), ms:`);
    console.table(rows);
    console.log('\nthe same queries inside PostgreSQL (EXPLAIN ANALYZE execution time, median of 20, ms):');
    console.table(await serverSide(db, company.id));

    // Retention: 1,000,000 expired events, deleted while requests run.
    started = Date.now();
    await fill(db, EVENTS, 400 * 86400, (300 * 86400) / EVENTS);
    await db.query('ANALYZE audit_events');
    console.log(`\nadded ${EVENTS.toLocaleString('en')} expired events in ${Date.now() - started} ms`);
    const probes = {
      'GET /v1/auditevents': () => get('?limit=50'),
      // No revocation notice to wait for (a permission change waits up to 200 ms for the other instances).
      'POST /v1/apikeys (inserts an event)': () =>
        timed(`${service.url}/v1/apikeys`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'probe', permissions: ['users:read'] }),
        }),
      'GET /v1/users/me': () => timed(`${service.url}/v1/users/me`, { headers: auth }),
    };
    const before = {};
    for (const [label, probe] of Object.entries(probes)) before[label] = await measure(300, 1, probe);

    // The job's own code in this process (the CLI's audit:purge runs the same, after booting Nest).
    const config = loadConfig(env);
    const jobSource = await new DataSource(dataSourceOptions(config)).initialize();
    const retention = new AuditRetention(jobSource, new SystemClock(), config);

    let purging = true;
    const during = Object.fromEntries(Object.keys(probes).map((label) => [label, []]));
    const loops = Object.entries(probes).map(async ([label, probe]) => {
      while (purging) during[label].push((await probe()).ms);
    });
    let maxLockWaiters = 0;
    let lockSamples = 0;
    const watcher = new Client({ connectionString: databaseUrl });
    await watcher.connect();
    const sampling = (async () => {
      while (purging) {
        const { rows: sample } = await watcher.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        maxLockWaiters = Math.max(maxLockWaiters, sample[0].waiting);
        lockSamples++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    started = Date.now();
    const deleted = await retention.runOnce();
    const purgeMs = Date.now() - started;
    purging = false;
    await Promise.all([...loops, sampling]);
    await watcher.end();
    await jobSource.destroy();
    const { rows: left } = await db.query(
      `SELECT count(*)::int AS expired FROM audit_events WHERE occurred_at < now() - interval '365 days'`,
    );
    console.log(
      `\nretention job (AuditRetention.runOnce, as the service runs it): deleted ${deleted.toLocaleString('en')} rows in ${purgeMs} ms ` +
        `(${left[0].expired} expired left); sessions waiting on a lock: at most ${maxLockWaiters} ` +
        `in ${lockSamples} samples of pg_stat_activity`,
    );
    console.table(
      Object.keys(probes).map((label) => {
        const quiet = summary(before[label]);
        const busy = summary(during[label]);
        return {
          request: label,
          'before: p50': quiet.p50,
          'before: p99': quiet.p99,
          'during: n': busy.n,
          'during: p50': busy.p50,
          'during: p99': busy.p99,
          'during: max': busy.max,
        };
      }),
    );
  } finally {
    await service?.stop();
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    killAll();
    console.error(error);
    process.exit(1);
  },
);
