#!/usr/bin/env node
/*
 * `npm run fleet [-- --redis sentinel|cluster]`: the reference topology on one machine, from Debian's packages.
 *
 *   HAProxy (round robin, X-Forwarded-For set to the address it saw)
 *     → 3 service instances (TRUST_PROXY names HAProxy's address)
 *         → PgBouncer (pool_mode = transaction) → PostgreSQL   (DATABASE_URL)
 *         → PostgreSQL itself for migrations and LISTEN        (DATABASE_DIRECT_URL)
 *         → Redis Sentinel (1 master, 1 replica, 3 sentinels) or Redis Cluster (3 masters, 3 replicas)
 *
 * PostgreSQL is the one at FLEET_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres); the database
 * FLEET_DATABASE (default `staff_auth_fleet`) is created there when missing and dropped at stop (unless
 * --keep-database, or it was there before the fleet made it; `--help` says all this). Ports start at FLEET_PORT_BASE
 * (default 18000). Everything this script starts runs under it, its logs and configs in a temp dir; Ctrl-C
 * (SIGINT) or SIGTERM stops each child by its PID and removes the dir. `npm run fleet` execs this script, so a
 * signal sent to npm's PID reaches it. `--seed-demo` has the first instance create the demo data on an empty
 * database; once ready the script prints how to log in and the `export` lines that point the operator CLI at
 * the fleet. The config files next to this script are the starting point for production: see deploy/README.md.
 */
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } = require('node:fs');
const { generateKeyPairSync, randomBytes } = require('node:crypto');
const { Socket } = require('node:net');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const HERE = __dirname;
const USAGE = 'usage: npm run fleet [-- --redis sentinel|cluster] [--seed-demo] [--keep-database] [--help]';
const HELP = `${USAGE}

Starts the reference topology on this machine: HAProxy in front of 3 instances of the built service, PgBouncer
(transaction pooling) in front of PostgreSQL, and Redis Sentinel (default) or Redis Cluster. Ctrl-C, or SIGTERM /
SIGINT to this process, stops everything it started.

Options:
  --redis sentinel|cluster  the Redis topology (default sentinel: 1 master, 1 replica, 3 sentinels;
                            cluster: 3 masters, 3 replicas)
  --seed-demo               the demo companies, products, orders and owner on an empty database; the owner's
                            password and an API key are printed once
  --keep-database           keep the database at stop (by default the fleet drops the database it created)
  --help                    this text

Environment:
  FLEET_PORT_BASE     first port (default 18000): HAProxy base, instances base+1..base+3, PgBouncer base+10,
                      Redis base+20..21, sentinels base+30..32, cluster nodes base+40..45 (bus ports +10)
  FLEET_POSTGRES_URL  the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
  FLEET_DATABASE      the database on it (default staff_auth_fleet): created when missing and dropped at stop
                      unless --keep-database; one that was there before the fleet made it is never dropped
  JWT_PRIVATE_KEY_FILE, JWT_SECRET, METRICS_TOKEN  used when set; generated for this run otherwise

More: deploy/README.md.`;
const { redisForm, seedDemo, keepDatabase } = (() => {
  let values;
  try {
    ({ values } = require('node:util').parseArgs({
      options: {
        redis: { type: 'string', default: 'sentinel' },
        'seed-demo': { type: 'boolean', default: false },
        'keep-database': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  if (values.redis !== 'sentinel' && values.redis !== 'cluster') {
    console.error(USAGE);
    process.exit(2);
  }
  return { redisForm: values.redis, seedDemo: values['seed-demo'], keepDatabase: values['keep-database'] };
})();
const base = Number(process.env.FLEET_PORT_BASE ?? 18000);
const ports = {
  haproxy: base,
  instances: [base + 1, base + 2, base + 3],
  pgbouncer: base + 10,
  redis: [base + 20, base + 21],
  sentinels: [base + 30, base + 31, base + 32],
  cluster: [0, 1, 2, 3, 4, 5].map((i) => base + 40 + i),
};
const postgresUrl = new URL(process.env.FLEET_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const databaseName = process.env.FLEET_DATABASE ?? 'staff_auth_fleet';
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(databaseName)) throw new Error('FLEET_DATABASE must be a plain lower-case name');
/** The mark a database the fleet created carries, so that a later run (after a crash) knows it may drop it. */
const CREATED_BY_FLEET = 'created by npm run fleet';
let ownsDatabase = false;
let databaseReady = false;
const dir = mkdtempSync(join(tmpdir(), 'staff-auth-fleet-'));
chmodSync(dir, 0o755);
const children = [];
let stopping = false;

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const bin = (name) => ['/usr/sbin', '/usr/bin', '/usr/local/bin'].map((d) => join(d, name)).find(existsSync) ?? name;

function fill(template, values) {
  return readFileSync(join(HERE, template), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key) => String(values[key]));
}

function start(name, command, args, env = {}) {
  const log = join(dir, `${name}.log`);
  const out = require('node:fs').openSync(log, 'a');
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  children.push({ name, child });
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`${name} (pid ${child.pid}) exited (${code ?? signal}); see ${log}`);
  });
  return child;
}

function listening(port) {
  return new Promise((done) => {
    const socket = new Socket();
    socket.setTimeout(300, () => (socket.destroy(), done(false)));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => (socket.destroy(), done(true)));
  });
}

async function until(what, check, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline || stopping) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(200);
  }
}

const redisCli = (port, ...args) =>
  execFileSync(bin('redis-cli'), ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });

const running = ({ child }) => child.exitCode === null && child.signalCode === null;

/** SIGTERM, then SIGKILL for what is still running after `ms`; returns once each has exited (and is reaped). */
async function terminate(group, ms) {
  for (const entry of group.filter(running)) entry.child.kill('SIGTERM');
  for (const [signal, wait] of [
    ['SIGKILL', ms],
    [null, 5000],
  ]) {
    const deadline = Date.now() + wait;
    while (group.some(running) && Date.now() < deadline) await sleep(100);
    if (signal) for (const entry of group.filter(running)) entry.child.kill(signal);
  }
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  // The balancer and the instances first (they finish requests in flight, leave the fleet and close their
  // connections), then what they stand on.
  const front = children.filter(({ name }) => name === 'haproxy' || name.startsWith('instance-'));
  await terminate(front, 15_000);
  await terminate(
    children.filter((entry) => !front.includes(entry)),
    5000,
  );
  await dropDatabase();
  // Kept after a failed start, for its logs.
  if (code === 0) rmSync(dir, { recursive: true, force: true });
  console.log(code === 0 ? 'fleet stopped' : `fleet stopped; logs kept in ${dir}`);
  process.exit(code);
}
/** Once nothing of the fleet uses it: the database it created goes too, unless --keep-database. */
async function dropDatabase() {
  if (!databaseReady) return;
  if (keepDatabase || !ownsDatabase) {
    console.log(`database ${databaseName} kept${keepDatabase ? '' : ': it was there before the fleet'}`);
    return;
  }
  try {
    await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
    console.log(`database ${databaseName} dropped`);
  } catch (error) {
    console.error(`fleet: could not drop the database ${databaseName}: ${error.message}`);
  }
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

/** A query on the server's maintenance database (FLEET_POSTGRES_URL), on a connection of its own. */
async function onServer(query) {
  const { Client } = require(require.resolve('pg', { paths: [ROOT] }));
  const client = new Client({ connectionString: postgresUrl.toString(), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await query(client);
  } finally {
    await client.end();
  }
}

async function postgres() {
  await onServer(async (client) => {
    const found = await client.query(
      "SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1",
      [databaseName],
    );
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${databaseName}`);
      await client.query(`COMMENT ON DATABASE ${databaseName} IS '${CREATED_BY_FLEET}'`);
      ownsDatabase = true;
    } else {
      // Made by an earlier run that did not get to drop it (killed): still the fleet's.
      ownsDatabase = found.rows[0].mark === CREATED_BY_FLEET;
    }
  });
  databaseReady = true;
  const direct = new URL(postgresUrl);
  direct.pathname = `/${databaseName}`;
  return direct;
}

async function pgbouncer(direct) {
  const user = decodeURIComponent(direct.username || 'postgres');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    fill('pgbouncer.ini', {
      POSTGRES_HOST: direct.hostname,
      POSTGRES_PORT: direct.port || 5432,
      PORT: ports.pgbouncer,
      AUTH_TYPE: 'trust',
      AUTH_FILE: join(dir, 'userlist.txt'),
    }),
  );
  for (const file of ['userlist.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  // PgBouncer will not run as root; it is told to switch to the postgres user then.
  const asRoot = process.getuid?.() === 0;
  start('pgbouncer', bin('pgbouncer'), [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')]);
  await until('pgbouncer', () => listening(ports.pgbouncer));
  const pooled = new URL(direct);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(ports.pgbouncer);
  return pooled;
}

async function redisSentinel() {
  const [master, replica] = ports.redis;
  for (const [port, extra] of [
    [master, []],
    [replica, ['--replicaof', '127.0.0.1', String(master)]],
  ]) {
    writeFileSync(join(dir, `redis-${port}.conf`), fill('redis.conf', { PORT: port, DIR: dir }));
    start(`redis-${port}`, bin('redis-server'), [join(dir, `redis-${port}.conf`), ...extra]);
    await until(`redis ${port}`, () => listening(port));
  }
  for (const port of ports.sentinels) {
    writeFileSync(join(dir, `sentinel-${port}.conf`), fill('sentinel.conf', { PORT: port, MASTER_PORT: master }));
    start(`sentinel-${port}`, bin('redis-server'), [join(dir, `sentinel-${port}.conf`), '--sentinel']);
    await until(`sentinel ${port}`, () => listening(port));
  }
  return `redis+sentinel://${ports.sentinels.map((port) => `127.0.0.1:${port}`).join(',')}/staffauth`;
}

async function redisCluster() {
  for (const port of ports.cluster) {
    writeFileSync(
      join(dir, `cluster-${port}.conf`),
      fill('redis-cluster.conf', { PORT: port, BUS_PORT: port + 10, DIR: dir }) /* bus: base + 50..55 */,
    );
    start(`cluster-${port}`, bin('redis-server'), [join(dir, `cluster-${port}.conf`)]);
    await until(`cluster node ${port}`, () => listening(port));
  }
  execFileSync(
    bin('redis-cli'),
    [
      '--cluster',
      'create',
      ...ports.cluster.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ],
    { stdio: 'ignore' },
  );
  for (const port of ports.cluster) {
    await until('cluster ok', async () => redisCli(port, 'CLUSTER', 'INFO').includes('cluster_state:ok'));
  }
  return `redis+cluster://${ports.cluster
    .slice(0, 3)
    .map((port) => `127.0.0.1:${port}`)
    .join(',')}`;
}

/** A fresh Ed25519 private key for this fleet's run, 0600 in its temp dir (removed with it). */
function fleetSigningKey() {
  const file = join(dir, 'jwt-ed25519.pem');
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' });
  writeFileSync(file, pem, { mode: 0o600 });
  return file;
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) {
    console.log('building the service (npm run build)…');
    execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  const direct = await postgres();
  const pooled = await pgbouncer(direct);
  const redisUrl = redisForm === 'cluster' ? await redisCluster() : await redisSentinel();
  const env = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    JWT_SECRET: process.env.JWT_SECRET ?? randomBytes(32).toString('base64url'),
    // Every instance signs with the same Ed25519 key (EdDSA; /.well-known/jwks.json publishes it); JWT_SECRET
    // beside it verifies HS256 tokens from before the move and derives the TOTP secrets' key.
    JWT_PRIVATE_KEY_FILE: process.env.JWT_PRIVATE_KEY_FILE ?? fleetSigningKey(),
    DATABASE_URL: pooled.toString(),
    DATABASE_DIRECT_URL: direct.toString(),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: 'fleet:',
    TRUST_PROXY: '127.0.0.1',
    METRICS_TOKEN: process.env.METRICS_TOKEN ?? randomBytes(24).toString('base64url'),
    SEED_DEMO: 'false',
  };
  for (const [i, port] of ports.instances.entries()) {
    start(`instance-${i + 1}`, process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
      ...env,
      PORT: String(port),
      // --seed-demo: the first instance creates the demo data (once, on an empty database) and prints the password.
      ...(i === 0 && seedDemo ? { SEED_DEMO: 'true' } : {}),
    });
  }
  for (const port of ports.instances) await until(`instance on ${port}`, () => listening(port), 60_000);
  if (seedDemo) {
    // The first instance writes the demo data once its port is open, then logs "listening" (or, at a quieter
    // LOG_LEVEL, has printed the banner's last line): only then is the banner there to read.
    const log = join(dir, 'instance-1.log');
    await until(
      'the demo data',
      async () => /"msg":"listening"|More API keys:/.test(readFileSync(log, 'utf8')),
      60_000,
    );
  }
  writeFileSync(
    join(dir, 'haproxy.cfg'),
    fill('haproxy.cfg', {
      PORT: ports.haproxy,
      SERVERS: ports.instances.map((port, i) => `  server instance${i + 1} 127.0.0.1:${port} check`).join('\n'),
    }),
  );
  start('haproxy', bin('haproxy'), ['-f', join(dir, 'haproxy.cfg'), '-db']);
  await until('haproxy', () => listening(ports.haproxy));

  console.log(
    JSON.stringify({
      api: `http://127.0.0.1:${ports.haproxy}`,
      docs: `http://127.0.0.1:${ports.haproxy}/docs`,
      instances: ports.instances.map((port) => `http://127.0.0.1:${port}`),
      database_url: env.DATABASE_URL,
      database_direct_url: env.DATABASE_DIRECT_URL,
      redis_url: redisUrl,
      metrics_token: env.METRICS_TOKEN,
      logs: dir,
      pids: Object.fromEntries(children.map(({ name, child }) => [name, child.pid])),
    }),
  );
  const api = `http://127.0.0.1:${ports.haproxy}`;
  const quote = (value) => `'${String(value).replace(/'/g, `'\\''`)}'`;
  console.log(
    [
      '',
      `Swagger UI: ${api}/docs   administration page: ${api}/admin`,
      `Database ${databaseName} (FLEET_DATABASE) on ${postgresUrl.host}: ` +
        (keepDatabase || !ownsDatabase ? 'kept at stop' : 'dropped at stop (--keep-database keeps it)'),
      ...loginHint(api),
      '',
      'The operator CLI against this fleet: paste these lines into a shell in the repository, then `npm run cli -- company:list`.',
      ...Object.entries({
        DATABASE_URL: env.DATABASE_URL,
        DATABASE_DIRECT_URL: env.DATABASE_DIRECT_URL,
        REDIS_URL: env.REDIS_URL,
        REDIS_KEY_PREFIX: env.REDIS_KEY_PREFIX,
        JWT_SECRET: env.JWT_SECRET,
        JWT_PRIVATE_KEY_FILE: env.JWT_PRIVATE_KEY_FILE,
      }).map(([key, value]) => `export ${key}=${quote(value)}`),
      '',
    ].join('\n'),
  );
  console.log('fleet ready; Ctrl-C stops everything it started');
}

/** What to log in with: the demo owner the first instance printed (with --seed-demo), or how to make one. */
function loginHint(api) {
  if (!seedDemo) {
    return [
      'No demo data (start with `npm run fleet -- --seed-demo` for some); or make an account with the CLI below:',
      '  npm run cli -- company:create --name Acme',
      '  printf \'%s\\n\' "$PASSWORD" | npm run cli -- employee:create --email you@acme.example',
      '  npm run cli -- membership:add --email you@acme.example --company 1 --permissions "*"',
    ];
  }
  const banner = readFileSync(join(dir, 'instance-1.log'), 'utf8');
  const password = /^\s+password:\s+(\S+)$/m.exec(banner)?.[1];
  const apiKey = /^\s+API key:\s+(\S+)$/m.exec(banner)?.[1];
  if (!password) {
    return [
      `Demo data: the database ${databaseName} was not empty, so none was created; its owner's password was shown`,
      'at its first start. Set a new one with the CLI below: npm run cli -- employee:set-password --email owner@demo.example',
    ];
  }
  return [
    `Demo data: log in as owner@demo.example with the password ${password} (shown only now), e.g.`,
    `  curl -s ${api}/v1/users/authenticateinit -H 'content-type: application/json' \\`,
    `    -d '{"email":"owner@demo.example","password":"${password}"}'`,
    `or read Demo Company A's products with its read-only API key (shown only now):`,
    `  curl -s ${api}/v1/products -H 'authorization: ${apiKey}'`,
  ];
}

main().catch((error) => {
  console.error(`fleet: ${error.message}`);
  void stop(1);
});
