import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const REDIS_CLI = process.env.REDIS_CLI_BIN ?? '/usr/bin/redis-cli';
const run = promisify(execFile);

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port in 20000-22700 that is free, and whose cluster bus port (+10000) is free too: both stay below
 * Linux's ephemeral range (32768-60999), where a parallel test's outgoing connection could take one between the
 * check and the server's start.
 */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 2700);
    if (taken.has(port) || taken.has(port + 10000) || taken.has(port - 10000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10000))) {
      taken.add(port);
      return port;
    }
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5000 });
  return stdout;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} within ${timeoutMs} ms`);
}

/** Redis processes a test starts and stops by PID, each with its config in a temp dir of its own. */
class Processes {
  readonly dir = mkdtempSync(join(tmpdir(), 'redis-topology-'));
  readonly byPort = new Map<number, ChildProcess>();

  spawn(port: number, args: string[]): void {
    const child = spawn(REDIS_SERVER, args, { stdio: 'ignore', cwd: this.dir });
    this.byPort.set(port, child);
  }

  async kill(port: number): Promise<void> {
    const child = this.byPort.get(port);
    this.byPort.delete(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    // Unref'd: a timer left pending after the exit would hold the jest worker for 5 s ("failed to exit gracefully").
    await Promise.race([exited, sleep(5000, undefined, { ref: false })]);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.byPort.keys()].map((port) => this.kill(port)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const COMMON = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/** One master, one replica and three sentinels that fail over within about 2 s of losing the master. */
export class SentinelSet {
  private readonly processes = new Processes();
  readonly masterName = 'staffauth';
  master!: number;
  replica!: number;
  sentinels: number[] = [];

  static async start(): Promise<SentinelSet> {
    const set = new SentinelSet();
    const taken = new Set<number>();
    set.master = await clusterPort(taken);
    set.replica = await clusterPort(taken);
    set.sentinels = [await clusterPort(taken), await clusterPort(taken), await clusterPort(taken)];
    set.processes.spawn(set.master, ['--port', String(set.master), ...COMMON]);
    set.processes.spawn(set.replica, [
      '--port',
      String(set.replica),
      ...COMMON,
      '--replicaof',
      '127.0.0.1',
      String(set.master),
    ]);
    await until('replica in sync', async () =>
      (await cli(set.replica, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    for (const port of set.sentinels) {
      const file = join(set.processes.dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `sentinel monitor ${set.masterName} 127.0.0.1 ${set.master} 2`,
          `sentinel down-after-milliseconds ${set.masterName} 1000`,
          `sentinel failover-timeout ${set.masterName} 3000`,
          `sentinel parallel-syncs ${set.masterName} 1`,
          '',
        ].join('\n'),
      );
      set.processes.spawn(port, [file, '--sentinel']);
    }
    for (const port of set.sentinels) {
      await until('sentinel sees the replica and its peers', async () => {
        const info = await cli(port, 'SENTINEL', 'MASTER', set.masterName);
        const lines = info.split('\n').map((line) => line.trim());
        const value = (key: string) => Number(lines[lines.indexOf(key) + 1]);
        return value('num-slaves') >= 1 && value('num-other-sentinels') >= 2;
      });
    }
    return set;
  }

  get url(): string {
    return `redis+sentinel://${this.sentinels.map((port) => `127.0.0.1:${port}`).join(',')}/${this.masterName}`;
  }

  async currentMaster(): Promise<number> {
    const out = await cli(this.sentinels[0], 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName);
    return Number(out.trim().split('\n')[1]);
  }

  /**
   * Resolves once every sentinel names the same master as the first. Each sentinel announces a switch
   * (+switch-master) when it learns of it, up to a hello period (2 s) after the one that led the failover, and
   * ioredis's failover detector reconnects at each announcement.
   */
  async settled(timeoutMs = 10_000): Promise<void> {
    const master = await this.currentMaster();
    await until(
      'every sentinel names the new master',
      async () => {
        for (const port of this.sentinels) {
          const out = await cli(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName);
          if (Number(out.trim().split('\n')[1]) !== master) return false;
        }
        return true;
      },
      timeoutMs,
    );
  }

  /** SIGKILLs the master; resolves once the sentinels name the replica instead. */
  async killMaster(): Promise<{ killedAt: number; promotedAt: number }> {
    const old = await this.currentMaster();
    const killedAt = Date.now();
    await this.processes.kill(old);
    await until('sentinel promotes the replica', async () => (await this.currentMaster()) !== old, 20_000);
    return { killedAt, promotedAt: Date.now() };
  }

  stop(): Promise<void> {
    return this.processes.stopAll();
  }
}

/** Three masters with one replica each; a replica takes over about 2 s after its master is lost. */
export class ClusterSet {
  private readonly processes = new Processes();
  ports: number[] = [];

  static async start(): Promise<ClusterSet> {
    const set = new ClusterSet();
    const taken = new Set<number>();
    for (let i = 0; i < 6; i++) set.ports.push(await clusterPort(taken));
    for (const port of set.ports) {
      set.processes.spawn(port, [
        '--port',
        String(port),
        ...COMMON,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '1000',
        // A replica judges its data too old to take over after 10 node timeouts plus the 10 s ping period,
        // which a test's short timeout reaches at once: let it take over whatever its data's age.
        '--cluster-replica-validity-factor',
        '0',
      ]);
    }
    for (const port of set.ports) await until('node answers', async () => (await cli(port, 'PING')).includes('PONG'));
    await run(
      REDIS_CLI,
      [
        '--cluster',
        'create',
        ...set.ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    for (const port of set.ports) {
      await until('cluster ok on every node', async () =>
        (await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      );
    }
    return set;
  }

  get url(): string {
    return `redis+cluster://${this.ports
      .slice(0, 3)
      .map((port) => `127.0.0.1:${port}`)
      .join(',')}`;
  }

  /** Ports of the nodes currently master, and of each one's replica. */
  async masters(): Promise<number[]> {
    const alive = [...this.processes.byPort.keys()];
    const out = await cli(alive[0], 'CLUSTER', 'NODES');
    return out
      .split('\n')
      .map((line) => line.split(' '))
      .filter((fields) => fields.length > 2)
      .filter(([, , flags]) => flags.split(',').includes('master') && !/fail/.test(flags))
      .map(([, address]) => Number(address.split(':')[1].split('@')[0]));
  }

  /** SIGKILLs a master; resolves once the cluster is whole again (its replica promoted). */
  async killMaster(): Promise<{ killed: number; killedAt: number; promotedAt: number }> {
    const [victim] = await this.masters();
    const killedAt = Date.now();
    await this.processes.kill(victim);
    const alive = [...this.processes.byPort.keys()];
    await until(
      'a replica takes over',
      async () => {
        const masters = await this.masters();
        const info = await cli(alive[0], 'CLUSTER', 'INFO');
        return masters.length === 3 && !masters.includes(victim) && info.includes('cluster_state:ok');
      },
      20_000,
    );
    return { killed: victim, killedAt, promotedAt: Date.now() };
  }

  stop(): Promise<void> {
    return this.processes.stopAll();
  }
}
