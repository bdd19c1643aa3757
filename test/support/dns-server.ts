import { type ChildProcess, spawn } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { createSocket } from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';

const DNSMASQ = process.env.DNSMASQ_BIN ?? '/usr/sbin/dnsmasq';

/** A free loopback UDP port (DNS is asked over UDP first). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/**
 * Debian's dnsmasq (package dnsmasq-base) as a real DNS server on a loopback port of its own: the TXT records a
 * test publishes, and NXDOMAIN for every other name (it knows no upstream, and answers every domain from its own
 * data). Started in the foreground and stopped by its PID. dnsmasq reads records at start only, so publishing
 * restarts it on the same port. `servers` is what DNS_SERVERS takes.
 */
export class DnsServer {
  private child?: ChildProcess;
  private readonly txt = new Map<string, string[]>();

  private constructor(readonly port: number) {}

  static async start(txt: Record<string, string[]> = {}): Promise<DnsServer> {
    const server = new DnsServer(await freeUdpPort());
    for (const [name, values] of Object.entries(txt)) server.txt.set(name, values);
    await server.run();
    return server;
  }

  get servers(): string {
    return `127.0.0.1:${this.port}`;
  }

  /**
   * Publishes `values` as the TXT records of `name` (replacing earlier ones; none removes the name). dnsmasq cuts
   * a value at its commas into several strings of one record.
   */
  async publish(name: string, ...values: string[]): Promise<void> {
    if (values.length === 0) this.txt.delete(name);
    else this.txt.set(name, values);
    await this.stop();
    await this.run();
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }

  private async run(): Promise<void> {
    const records = [...this.txt].flatMap(([name, values]) => values.map((value) => `--txt-record=${name},${value}`));
    const child = spawn(
      DNSMASQ,
      [
        '--keep-in-foreground',
        `--port=${this.port}`,
        '--listen-address=127.0.0.1',
        '--bind-interfaces',
        '--no-resolv',
        '--no-hosts',
        '--pid-file=',
        // Every name is this server's own: what it does not hold is NXDOMAIN, not "no upstream" (REFUSED).
        '--local=/#/',
        ...records,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    this.child = child;
    const resolver = new Resolver({ timeout: 200, tries: 1 });
    resolver.setServers([this.servers]);
    const deadline = Date.now() + 5000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`dnsmasq exited with ${child.exitCode}: ${stderr}`);
      if (await answers(resolver)) return;
      if (Date.now() > deadline) throw new Error(`dnsmasq did not answer on ${this.servers}: ${stderr}`);
      await sleep(30);
    }
  }
}

/** Whether the server answers at all: NXDOMAIN for a name it does not hold is an answer. */
async function answers(resolver: Resolver): Promise<boolean> {
  try {
    await resolver.resolveTxt('ready.dns-server.test');
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTFOUND';
  }
}
