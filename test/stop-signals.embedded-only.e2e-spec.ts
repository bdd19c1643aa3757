import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { accepting, alive, descendants, NPM } from './support/process-tree';
import { logRecords, requireBuild } from './support/processes';
import { freePort } from './support/redis-server';

const ROOT = join(__dirname, '..');

// npm, its prestart check and a first start of the embedded database, on a machine shared with other suites.
jest.setTimeout(120_000);

/**
 * A POST whose headers and first half of the body are sent now; `finish()` sends the rest and resolves with the
 * status line of the answer (or the socket's error). The request is in flight between the two.
 */
function halfSentRequest(port: number): { finish(): Promise<string> } {
  const body = JSON.stringify({ email: 'nobody@example.test', password: 'not the password at all' });
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const answer = new Promise<string>((done) => {
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => done(received.split('\r\n')[0] || 'closed without an answer'));
    socket.on('error', (error) => done(`error: ${error.message}`));
  });
  socket.write(
    `POST /v1/users/authenticateinit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
  );
  return {
    finish() {
      socket.write(body.slice(10));
      return answer;
    },
  };
}

/** Output of a child, and its exit. */
function watch(child: ChildProcess) {
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { output: () => out, exited };
}

/**
 * The README's "stop with Ctrl-C or SIGTERM" as a supervisor does it: the signal goes to the PID it started,
 * which is npm's. The service must receive it, finish the request in flight, and leave nothing behind: no
 * process of the tree, a free port, and the data folder's lock released (the next start opens it).
 */
describe.each([
  ['npm start', ['start'], 'SIGTERM', {}],
  ['npm start', ['start'], 'SIGINT', {}],
  ['npm run start:prod', ['run', 'start:prod'], 'SIGTERM', { JWT_SECRET: 'a-production-secret-of-32-bytes-at-least' }],
] as const)('%s stopped with %s sent to npm’s PID', (_name, args, signal, extra) => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let tree: number[] = [];

  beforeAll(() => {
    requireBuild();
    dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-signal-'));
  });

  afterAll(() => {
    for (const pid of [child?.pid, ...tree]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reaches the service: the request in flight is answered, every process exits, the port is free', async () => {
    const port = await freePort();
    const { PATH, HOME } = process.env;
    child = spawn(NPM, [...args], {
      cwd: ROOT,
      env: {
        PATH: PATH!,
        HOME: HOME!,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME_COST: '1',
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { output, exited } = watch(child);
    const deadline = Date.now() + 90_000;
    while (!logRecords(output()).some((record) => record.msg === 'listening')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no "listening" line:\n${output()}`);
      await sleep(100);
    }
    tree = descendants(child.pid!);
    expect(tree.length).toBeGreaterThan(0);

    const inFlight = halfSentRequest(port);
    await sleep(200);
    child.kill(signal);
    await sleep(300);
    expect(await inFlight.finish()).toBe('HTTP/1.1 401 Unauthorized');

    const exit = await Promise.race([exited, sleep(20_000).then(() => 'npm did not exit within 20 s')]);
    if (typeof exit === 'string') throw new Error(`${exit}:\n${output()}`);
    // Once npm has gone, nothing it started may still run (it would hold the port and the data folder's lock).
    const until = Date.now() + 5000;
    while (tree.some(alive) && Date.now() < until) await sleep(100);
    expect(tree.filter(alive)).toEqual([]);
    expect(await accepting(port)).toBe(false);
    expect(existsSync(join(dataDir, '.embedded-db.lock'))).toBe(false);
    expect(logRecords(output()).map((record) => record.msg)).toEqual(
      expect.arrayContaining(['shutting down: no new connections, finishing requests in flight', 'stopped']),
    );
    expect(logRecords(output()).find((record) => record.signal)?.signal).toBe(signal);
  });
});
