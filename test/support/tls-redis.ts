import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { freePort } from './redis-server';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const OPENSSL = process.env.OPENSSL_BIN ?? '/usr/bin/openssl';

/**
 * A private CA made with openssl, as an operator makes one for a managed Redis: `ca.pem` signs `server.pem`
 * (for 127.0.0.1 and localhost); `other-ca.pem` is a second CA that signed nothing this server shows.
 */
export class TestCertificates {
  private constructor(readonly dir: string) {}

  static make(): TestCertificates {
    const dir = mkdtempSync(join(tmpdir(), 'staff-auth-tls-'));
    const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: 'pipe' });
    for (const ca of ['ca', 'other-ca']) {
      openssl(
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=Test ${ca}`],
        ...['-keyout', `${ca}.key`, '-out', `${ca}.pem`],
      );
    }
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    );
    openssl(
      ...['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'],
      ...['-days', '2', '-extfile', 'server.ext', '-out', 'server.pem'],
    );
    return new TestCertificates(dir);
  }

  file(name: 'ca.pem' | 'other-ca.pem' | 'server.pem' | 'server.key'): string {
    return join(this.dir, name);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Debian's redis-server speaking TLS only (`--tls-port`, no plain port), clients not asked for certificates. */
export class TlsRedisServer {
  private child?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(certificates: TestCertificates, extraArgs: string[] = []): Promise<TlsRedisServer> {
    const server = new TlsRedisServer(await freePort());
    const child = spawn(
      REDIS_SERVER,
      [
        ...[
          '--port',
          '0',
          '--tls-port',
          String(server.port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        ...['--tls-cert-file', certificates.file('server.pem'), '--tls-key-file', certificates.file('server.key')],
        ...['--tls-ca-cert-file', certificates.file('ca.pem'), '--tls-auth-clients', 'no'],
        ...extraArgs,
      ],
      { stdio: 'ignore' },
    );
    server.child = child;
    const deadline = Date.now() + 5000;
    while (!(await answersOverTls(server.port, certificates.file('ca.pem')))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`TLS redis-server on ${server.port}`);
      await sleep(50);
    }
    return server;
  }

  url(credentials = ''): string {
    return `rediss://${credentials}127.0.0.1:${this.port}`;
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Whether a TLS handshake trusting `caFile` succeeds and the server answers (anything: PONG or NOAUTH). */
function answersOverTls(port: number, caFile: string): Promise<boolean> {
  return new Promise((done) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: readFileSync(caFile) }, () => socket.write('PING\r\n'));
    socket.setTimeout(500, () => (socket.destroy(), done(false)));
    socket.once('error', () => done(false));
    socket.once('data', () => (socket.destroy(), done(true)));
  });
}
