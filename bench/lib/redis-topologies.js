'use strict';
/**
 * Redis Sentinel (1 master + 1 replica + 3 sentinels) and Redis Cluster (3 masters + 3 replicas) on loopback
 * ports of their own, for the benchmark's rows next to the single server. Stopped by PID.
 */
const { execFileSync, spawn } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { createServer, Socket } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const REDIS_CLI = process.env.REDIS_CLI_BIN ?? '/usr/bin/redis-cli';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const free = (port) =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** Ports in 20000-45000 whose cluster bus port (+10000) is free too. */
async function ports(count) {
  const taken = [];
  while (taken.length < count) {
    const port = 20000 + Math.floor(Math.random() * 25000);
    if (taken.some((p) => Math.abs(p - port) % 10000 === 0)) continue;
    if ((await free(port)) && (await free(port + 10000))) taken.push(port);
  }
  return taken;
}

const answers = (port) =>
  new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(300, () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.once('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });

const cli = (port, ...args) =>
  execFileSync(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });

async function until(what, check, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await sleep(100);
  }
}

function group() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const children = [];
  return {
    dir,
    spawn: (args) => children.push(spawn(REDIS_SERVER, args, { cwd: dir, stdio: 'ignore' })),
    stop: () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const COMMON = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

async function startSentinel() {
  const processes = group();
  const [master, replica, ...sentinels] = await ports(5);
  processes.spawn(['--port', String(master), ...COMMON]);
  processes.spawn(['--port', String(replica), ...COMMON, '--replicaof', '127.0.0.1', String(master)]);
  for (const port of sentinels) {
    const file = join(processes.dir, `sentinel-${port}.conf`);
    writeFileSync(file, `port ${port}\nbind 127.0.0.1\nsentinel monitor bench 127.0.0.1 ${master} 2\n`);
    processes.spawn([file, '--sentinel']);
  }
  await until('sentinels', async () => {
    for (const port of [master, replica, ...sentinels]) if (!(await answers(port))) return false;
    return cli(sentinels[0], 'SENTINEL', 'MASTER', 'bench').includes('num-slaves');
  });
  return { url: `redis+sentinel://${sentinels.map((p) => `127.0.0.1:${p}`).join(',')}/bench`, stop: processes.stop };
}

async function startCluster() {
  const processes = group();
  const nodes = await ports(6);
  for (const port of nodes) {
    processes.spawn([
      '--port',
      String(port),
      ...COMMON,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
    ]);
  }
  await until('cluster nodes', async () => (await Promise.all(nodes.map(answers))).every(Boolean));
  execFileSync(
    REDIS_CLI,
    ['--cluster', 'create', ...nodes.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
    { stdio: 'ignore' },
  );
  await until('cluster ok', async () =>
    nodes.every((port) => cli(port, 'CLUSTER', 'INFO').includes('cluster_state:ok')),
  );
  return {
    url: `redis+cluster://${nodes
      .slice(0, 3)
      .map((p) => `127.0.0.1:${p}`)
      .join(',')}`,
    stop: processes.stop,
  };
}

module.exports = { startSentinel, startCluster };
