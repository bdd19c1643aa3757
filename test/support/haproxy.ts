import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, listening } from './redis-server';

const HAPROXY = process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy';

/**
 * An HAProxy of a test's own balancing round-robin over service instances. It connects to them from
 * `sourceAddress` (a loopback address of its own, which the instances' TRUST_PROXY names) and replaces any
 * X-Forwarded-For a client sent with the address it saw, as deploy/haproxy.cfg does.
 */
export class HaProxy {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'haproxy-'));

  private constructor(readonly port: number) {}

  static async start(backends: string[], sourceAddress: string): Promise<HaProxy> {
    const proxy = new HaProxy(await freePort());
    const servers = backends.map((url, i) => {
      const { hostname, port } = new URL(url);
      return `  server s${i} ${hostname}:${port} source ${sourceAddress}`;
    });
    const config = [
      'global',
      '  maxconn 1000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      'frontend api',
      `  bind 127.0.0.1:${proxy.port}`,
      '  http-request set-header X-Forwarded-For %[src]',
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      ...servers,
      '',
    ].join('\n');
    writeFileSync(join(proxy.dir, 'haproxy.cfg'), config);
    proxy.child = spawn(HAPROXY, ['-f', join(proxy.dir, 'haproxy.cfg'), '-db'], { stdio: 'ignore' });
    const deadline = Date.now() + 5000;
    while (!(await listening(proxy.port))) {
      if (proxy.child.exitCode !== null || Date.now() > deadline) throw new Error('haproxy did not start');
      await sleep(25);
    }
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      // Unref'd: a timer left pending after the exit would hold the jest worker for 5 s ("failed to exit gracefully").
      await Promise.race([exited, sleep(5000, undefined, { ref: false })]);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
