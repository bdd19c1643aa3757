'use strict';
/**
 * `npm run bench:capacity`: the per-operation figures docs/scaling.md plans with, measured on this machine.
 * A built instance on a fresh PostgreSQL database and a Redis server of its own: database queries per login,
 * refresh, company switch and logout (db_queries_total), Redis commands and bytes per hot-path request
 * (INFO commandstats / stats after CONFIG RESETSTAT), and Redis memory per 1 M live buckets in the storage's
 * key shape. Needs DATABASE_URL (a server where it may create a database) and redis-server.
 */
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const argon2 = require('argon2');
const Redis = require('ioredis');
const { startService, stop, freePort } = require('./lib/processes');
const { json, serviceEnv } = require('./lib/measure');

const databaseServer = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const HOT_REQUESTS = 2000;
const BUCKETS = 1_000_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function dbQueries(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^db_queries_total(?:\{\})? (\d+)/m.exec(text)[1]);
}

async function main() {
  if (!databaseServer) throw new Error('set DATABASE_URL (or BENCH_DATABASE_URL)');
  const redisPort = await freePort();
  const redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', ''], {
    stdio: 'ignore',
  });
  const redis = new Redis({ port: redisPort, host: '127.0.0.1', lazyConnect: true });
  const name = `staff_auth_capacity_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: databaseServer });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const databaseUrl = new URL(databaseServer);
  databaseUrl.pathname = `/${name}`;
  let service;
  try {
    await sleep(300);
    await redis.connect();
    service = await startService(
      serviceEnv({ DATABASE_URL: databaseUrl.toString(), REDIS_URL: `redis://127.0.0.1:${redisPort}` }),
      { label: 'capacity instance' },
    );
    // Data straight into the migrated database: two companies, one owner of both.
    const db = new Client({ connectionString: databaseUrl.toString() });
    await db.connect();
    const password = 'capacity password, long enough';
    const hash = await argon2.hash(password, { type: argon2.argon2id });
    const [alpha, beta] = (await db.query(`INSERT INTO company (name) VALUES ('A'), ('B') RETURNING id`)).rows.map(
      (row) => row.id,
    );
    const employee = await db.query(
      `INSERT INTO employee (email, name, password_hash) VALUES ('cap@example.test', 'Cap', $1) RETURNING id`,
      [hash],
    );
    await db.query(
      `INSERT INTO membership (employee_id, company_id, permissions) VALUES ($1, $2, '{*}'), ($1, $3, '{*}')`,
      [employee.rows[0].id, alpha, beta],
    );
    await db.end();

    const url = service.url;
    const perOperation = {};
    const measure = async (label, work) => {
      const before = await dbQueries(url);
      const result = await work();
      perOperation[label] = (await dbQueries(url)) - before;
      return result;
    };
    const login = () =>
      json(`${url}/v1/users/authenticatefinish`, {
        method: 'POST',
        body: { email: 'cap@example.test', password, company_id: alpha },
      });
    await login();
    const session = (await measure('login', login)).body;
    const refreshed = (
      await measure('refresh', () =>
        json(`${url}/v1/users/refreshtoken`, { method: 'POST', body: { refresh_token: session.refresh_token } }),
      )
    ).body;
    const switched = (
      await measure('switch', () =>
        json(`${url}/v1/users/changeworkingcompany`, {
          method: 'POST',
          headers: { authorization: refreshed.jwt },
          body: { company_id: beta },
        }),
      )
    ).body;
    await json(`${url}/v1/users/me`, { headers: { authorization: switched.jwt } });
    await measure('first request with a new token', () =>
      json(`${url}/v1/users/me`, { headers: { authorization: refreshed.jwt } }),
    );
    await measure('cached request (hot path)', () =>
      json(`${url}/v1/users/me`, { headers: { authorization: switched.jwt } }),
    );
    await measure('logout (revocation)', () =>
      json(`${url}/v1/users/logout`, { method: 'POST', headers: { authorization: switched.jwt } }),
    );

    // Redis work per hot-path request: a fresh token, cached, then HOT_REQUESTS requests.
    const hot = (await login()).body.jwt;
    await json(`${url}/v1/users/me`, { headers: { authorization: hot } });
    await redis.config('RESETSTAT');
    // INFO commandstats counts the commands a script runs as well; MONITOR tells what clients sent (round trips).
    const monitor = await redis.monitor();
    const sent = new Map();
    monitor.on('monitor', (_time, args, source) => {
      if (source === 'lua') return;
      const command = String(args[0]).toLowerCase();
      sent.set(command, (sent.get(command) ?? 0) + 1);
    });
    const started = Date.now();
    for (let i = 0; i < HOT_REQUESTS; i++) await json(`${url}/v1/users/me`, { headers: { authorization: hot } });
    const seconds = (Date.now() - started) / 1000;
    await sleep(50);
    monitor.disconnect();
    const commandstats = await redis.info('commandstats');
    const stats = await redis.info('stats');
    const calls = [...commandstats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, cmd, n]) => [cmd, Number(n)]);
    const stat = (key) => Number(new RegExp(`^${key}:(\\d+)`, 'm').exec(stats)[1]);
    // The heartbeat (one script a second) runs alongside; its share is subtracted.
    const heartbeats = Math.ceil(seconds);
    const perRequest = (entries) =>
      Object.fromEntries(entries.map(([cmd, n]) => [cmd, +(n / HOT_REQUESTS).toFixed(3)]));
    const redisPerRequest = {
      sent_by_clients: perRequest([...sent].filter(([cmd]) => cmd !== 'info' && cmd !== 'config')),
      commands: perRequest(calls),
      heartbeat_scripts_in_window: heartbeats,
      bytes_in: +(stat('total_net_input_bytes') / HOT_REQUESTS).toFixed(1),
      bytes_out: +(stat('total_net_output_bytes') / HOT_REQUESTS).toFixed(1),
    };

    // Memory per live bucket, in the storage's key shape: `{prefix}rl:req:{ip|METHOD|group|token hash}`, whose
    // value is the bucket's "empty again" instant in ms with three decimals (src/platform/counters/redis-rate-limit.storage.ts).
    await redis.flushall();
    const before = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
    const FILL = `
      for i = ARGV[1], ARGV[2] do
        local key = 'staff-auth:rl:req:10.' .. (i % 250) .. '.' .. math.floor(i / 250) % 250 .. '.' .. math.floor(i / 62500) ..
          '|GET|users|0123456789abcdef'
        redis.call('SET', key, string.format('%.3f', 1795553828559.125 + i), 'PX', 600000)
      end
      return 0`;
    for (let from = 0; from < BUCKETS; from += 100_000) await redis.eval(FILL, 0, from, from + 99_999);
    const after = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
    const keys = await redis.dbsize();

    console.log(
      JSON.stringify(
        {
          db_queries: perOperation,
          redis_per_hot_request: redisPerRequest,
          redis_memory: {
            buckets: keys,
            bytes_per_bucket: Math.round((after - before) / keys),
            total_mib: Math.round((after - before) / 1048576),
          },
        },
        null,
        2,
      ),
    );
  } finally {
    if (service) await stop(service.child);
    redis.disconnect();
    redisServer.kill('SIGKILL');
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(`capacity: ${error.message}`);
  process.exit(1);
});
