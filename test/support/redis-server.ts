import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** Whether something accepts connections on a loopback port: a started server is ready. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(300, () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
  });
}

/** A free loopback port (for servers that cannot listen on port 0 and report it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/**
 * A redis-server of a test's own, on a loopback port of its own (never the shared 6379), that the test can kill
 * and bring back on the same port. No persistence: a restart comes back empty, as a crashed cache does.
 */
export class RedisServer {
  private child?: ChildProcess;

  constructor(
    readonly port: number,
    private readonly extraArgs: string[] = [],
  ) {}

  /** `extraArgs` e.g. `['--enable-debug-command', 'yes']`, so a test can stall the server with DEBUG SLEEP. */
  static async onFreePort(extraArgs: string[] = []): Promise<RedisServer> {
    return new RedisServer(await freePort(), extraArgs);
  }

  /** A server on a free port, already answering. */
  static async start(extraArgs: string[] = []): Promise<RedisServer> {
    const server = await RedisServer.onFreePort(extraArgs);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      REDIS_SERVER,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.extraArgs],
      { stdio: 'ignore' },
    );
    this.child = child;
    const deadline = Date.now() + 5000;
    while (!(await ping(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server on ${this.port} did not start`);
      await sleep(25);
    }
  }

  /** Brings a killed server back on the same port, empty. */
  restart(): Promise<void> {
    return this.start();
  }

  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered, as a hung host does. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
  }
}
