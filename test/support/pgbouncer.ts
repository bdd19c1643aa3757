import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, listening } from './redis-server';

const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/**
 * A PgBouncer of a test's own in transaction mode, in front of one PostgreSQL server, with
 * `server_round_robin = 1` (each transaction may land on another server connection, as on a busy pooler).
 * Trust authentication for the users given (the test server trusts loopback too).
 */
export class PgBouncer {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));

  private constructor(
    readonly port: number,
    private readonly upstream: URL,
    private readonly poolSize: number,
  ) {}

  static async start(upstreamUrl: string, poolSize = 4): Promise<PgBouncer> {
    const bouncer = new PgBouncer(await freePort(), new URL(upstreamUrl), poolSize);
    await bouncer.run();
    return bouncer;
  }

  /** The same database and user as `url`, through this pooler. */
  pooled(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  private async run(): Promise<void> {
    const user = decodeURIComponent(this.upstream.username || 'postgres');
    writeFileSync(join(this.dir, 'userlist.txt'), `"${user}" ""\n`);
    writeFileSync(
      join(this.dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${this.upstream.hostname} port=${this.upstream.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${this.port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(this.dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        'server_round_robin = 1',
        `default_pool_size = ${this.poolSize}`,
        'max_client_conn = 500',
        'ignore_startup_parameters = extra_float_digits,options',
        '',
      ].join('\n'),
    );
    // PgBouncer refuses to run as root; as root (a CI container) it is told to switch to the postgres user,
    // who must be able to read its files.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      chmodSync(this.dir, 0o755);
      chmodSync(join(this.dir, 'userlist.txt'), 0o644);
      chmodSync(join(this.dir, 'pgbouncer.ini'), 0o644);
    }
    const args = [...(asRoot ? ['-u', 'postgres'] : []), join(this.dir, 'pgbouncer.ini')];
    this.child = spawn(PGBOUNCER, args, { stdio: 'ignore' });
    const deadline = Date.now() + 5000;
    while (!(await listening(this.port))) {
      if (this.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`pgbouncer on ${this.port} did not start`);
      await sleep(25);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGINT');
      // Unref'd: a timer left pending after the exit would hold the jest worker for 5 s ("failed to exit gracefully").
      await Promise.race([exited, sleep(5000, undefined, { ref: false })]);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
