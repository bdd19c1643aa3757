import { type ChildProcess, spawn } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HostResolver } from '../../src/platform/common/outbound/pinned-request';

const DNSMASQ = process.env.DNSMASQ_BIN ?? '/usr/sbin/dnsmasq';

/**
 * A loopback port free for both UDP and TCP (dnsmasq listens on both), below the kernel's ephemeral range
 * (32768–60999): a port from bind(0) lies inside it, and between two starts of one server (publishing restarts
 * it on its port) an outgoing connection or DNS query of any process could take it as its own local port.
 */
export async function freeDnsPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await bindable(port, 'udp')) && (await bindable(port, 'tcp'))) return port;
  }
  throw new Error('no free loopback port for a DNS server in 20000–31999');
}

function bindable(port: number, kind: 'udp' | 'tcp'): Promise<boolean> {
  return new Promise((resolve) => {
    if (kind === 'udp') {
      const socket = createSocket('udp4');
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
    } else {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    }
  });
}

/** `addresses`' key for every name the server holds no other record of (dnsmasq's `--address=/#/…`). */
export const EVERY_NAME = '#';

/**
 * Debian's dnsmasq (package dnsmasq-base) as a real DNS server on a loopback port of its own: the TXT and
 * address (A, AAAA) records a test publishes, and NXDOMAIN for every other name (it knows no upstream, and answers
 * every domain from its own data). Its own records go out with TTL 0 (dnsmasq's default `--local-ttl`): nobody
 * caches them, so a changed record is the next answer. Started in the foreground and stopped by its PID. dnsmasq
 * reads records at start only, so publishing restarts it on the same port. `servers` is what DNS_SERVERS takes;
 * {@link hostResolver} is the service's outbound host resolver asking this server. Every query is logged
 * ({@link queries}).
 */
export class DnsServer {
  private child?: ChildProcess;
  private readonly txt = new Map<string, string[]>();
  private readonly addresses = new Map<string, string[]>();
  /** dnsmasq's log (`--log-queries`) over every start. */
  private log = '';
  private marks = 0;

  private constructor(readonly port: number) {}

  static async start(txt: Record<string, string[]> = {}, addresses: Record<string, string[]> = {}): Promise<DnsServer> {
    const server = new DnsServer(await freeDnsPort());
    for (const [name, values] of Object.entries(txt)) server.txt.set(name, values);
    for (const [name, values] of Object.entries(addresses)) server.addresses.set(name, values);
    await server.run();
    return server;
  }

  /**
   * Publishes `addresses` (IPv4 as A, IPv6 as AAAA records) as the addresses of `name`, replacing earlier ones;
   * none removes the name. {@link EVERY_NAME}: of every name without records of its own.
   */
  async publishAddresses(name: string, ...addresses: string[]): Promise<void> {
    if (addresses.length === 0) this.addresses.delete(name);
    else this.addresses.set(name, addresses);
    await this.stop();
    await this.run();
  }

  /**
   * How many queries of `type` for `name` this server was asked, over all its starts, up to now: a marker query
   * asked first, and the log read once it shows it (dnsmasq logs queries in the order it answers them).
   */
  async queries(name: string, type: 'A' | 'AAAA' | 'TXT' = 'A'): Promise<number> {
    const marker = `mark-${++this.marks}.dns-server.test`;
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([this.servers]);
    await resolver.resolveTxt(marker).catch(() => undefined);
    const deadline = Date.now() + 5000;
    while (!this.log.includes(`query[TXT] ${marker} from `)) {
      if (Date.now() > deadline) throw new Error(`dnsmasq did not log the query for ${marker}`);
      await sleep(10);
    }
    const line = `query[${type}] ${name} from `;
    return this.log.split('\n').filter((entry) => entry.includes(line)).length;
  }

  /**
   * A host resolver (what the service's `dns.lookup` does with the system's resolver) asking this server over
   * the wire: its A and AAAA records, IPv4 first; ENOTFOUND when it has neither.
   */
  hostResolver(): HostResolver {
    const resolver = new Resolver({ timeout: 3000, tries: 1 });
    resolver.setServers([this.servers]);
    const none = (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOTFOUND' || error.code === 'ENODATA') return [];
      throw error;
    };
    return async (hostname): Promise<LookupAddress[]> => {
      const [v4, v6] = await Promise.all([
        resolver.resolve4(hostname).catch(none),
        resolver.resolve6(hostname).catch(none),
      ]);
      const addresses = [
        ...v4.map((address) => ({ address, family: 4 })),
        ...v6.map((address) => ({ address, family: 6 })),
      ];
      if (addresses.length === 0) {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      }
      return addresses;
    };
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
    const records = [
      ...[...this.txt].flatMap(([name, values]) => values.map((value) => `--txt-record=${name},${value}`)),
      ...[...this.addresses].flatMap(([name, values]) =>
        values.map((value) => (name === EVERY_NAME ? `--address=/#/${value}` : `--host-record=${name},${value}`)),
      ),
    ];
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
        // Each query and its answer on stderr (the log this class keeps).
        '--log-queries',
        '--log-facility=-',
        ...records,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      this.log += chunk;
    });
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

/**
 * Whether the server answers at all: NXDOMAIN for a name it does not hold is an answer, and so is NODATA (no TXT
 * record of a name that has addresses, as every name has under {@link EVERY_NAME}).
 */
async function answers(resolver: Resolver): Promise<boolean> {
  try {
    await resolver.resolveTxt('ready.dns-server.test');
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOTFOUND' || code === 'ENODATA';
  }
}
