import { Agent, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { beginShutdown } from '../src/operations/bootstrap/edge-errors';
import { ProbeModule } from './support/probe.module';
import { CHILD_TEST_ENV, killChildren, requireBuild, startService } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';

// Generous: the compiled service's start and the embedded database are slow on a loaded machine.
jest.setTimeout(90_000);

interface Answer {
  status: number;
  body: string;
}

/** A real HTTP request on a new socket; `sent` resolves once the request has gone out. */
function httpGet(port: number, path: string): { sent: Promise<void>; answer: Promise<Answer> } {
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, agent: new Agent({ keepAlive: false }), timeout: 5000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.on('finish', markSent);
    req.end();
  });
  answer.catch(() => markSent());
  return { sent, answer };
}

describe('graceful shutdown (app.close() while a request is in flight)', () => {
  let t: TestApp;
  let port: number;
  let closed = false;

  beforeAll(async () => {
    t = await startTestApp({ extraModules: [ProbeModule] });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    if (!closed) await t?.app.close();
    await t?.database.drop();
  });

  it('finishes the request in flight with 200, and refuses new connections', async () => {
    const warmUp = await httpGet(port, '/v1/probe/slow?ms=0').answer;
    expect(warmUp.status).toBe(200);

    const slow = httpGet(port, '/v1/probe/slow?ms=300');
    await slow.sent;
    // Let the server read the request, so it is in flight rather than an idle socket that close may drop.
    await new Promise((resolve) => setTimeout(resolve, 100));

    let slowSettled = false;
    void slow.answer.finally(() => (slowSettled = true)).catch(() => undefined);
    const closing = t.app.close();
    closed = true;

    // Nest runs its destroy hooks before it closes the server; once the listener is gone, and while the slow
    // request is still running, a new connection is refused.
    const server = t.app.getHttpServer();
    for (const deadline = Date.now() + 2000; server.listening && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(server.listening).toBe(false);
    await expect(httpGet(port, '/v1/probe/slow?ms=0').answer).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(slowSettled).toBe(false);

    await expect(slow.answer).resolves.toEqual({ status: 200, body: JSON.stringify({ waited: 300 }) });
    await closing;

    await expect(httpGet(port, '/health').answer).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('graceful shutdown: requests arriving after the close began answer 503 in shape', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraModules: [ProbeModule] });
    await t.app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await t?.database.drop();
  });

  it('finishes the request in flight, then answers the next one on that connection 503 error_service_unavailable', async () => {
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /v1/probe/slow?ms=400 HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 150));

    // As main.ts does on SIGTERM.
    beginShutdown(t.app);
    const closing = t.app.close();
    // The connection is busy, so the close does not drop it; a request sent on it now arrives during the close.
    socket.write('GET /v1/probe/slow?ms=0 HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closing;

    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(answers[0]).toContain('{"waited":400}');
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503 /);
    expect(answers[1].toLowerCase()).toContain('connection: close');
    expect(JSON.parse(answers[1].slice(answers[1].indexOf('\r\n\r\n') + 4))).toEqual({
      error: ['error_service_unavailable'],
      message: expect.any(String),
    });
  });
});

describe('SIGTERM to the compiled service (npm start)', () => {
  let database: ProvisionedDatabase;

  beforeAll(async () => {
    requireBuild();
    database = await provisionDatabase();
  });

  afterAll(async () => {
    await killChildren();
    await database?.drop();
  });

  it('finishes the request in flight, answers the next one 503 in shape, and exits 0', async () => {
    const service = await startService({
      ...CHILD_TEST_ENV,
      ...database.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!',
    });
    const { port } = new URL(service.url);
    const socket = connect({ port: Number(port), host: '127.0.0.1' });
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // In flight: the headers have arrived, half of the body has not.
    const body = JSON.stringify({ email: 'nobody@example.test', password: 'wrong password' });
    socket.write(
      `POST /v1/users/authenticateinit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    service.child.process.kill('SIGTERM');
    for (
      const deadline = Date.now() + 10_000;
      !service.child.stdout.includes('shutting down') && Date.now() < deadline;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    socket.write(`${body.slice(10)}GET /v1/users/me HTTP/1.1\r\nHost: x\r\n\r\n`);
    await ended;
    const exited = await service.child.exit(10_000);

    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual(['HTTP/1.1 401', 'HTTP/1.1 503']);
    expect(JSON.parse(answers[0].slice(answers[0].indexOf('\r\n\r\n') + 4))).toEqual({
      error: ['error_invalid_credentials'],
      message: expect.any(String),
    });
    expect(JSON.parse(answers[1].slice(answers[1].indexOf('\r\n\r\n') + 4))).toEqual({
      error: ['error_service_unavailable'],
      message: expect.any(String),
    });
    expect(exited.code).toBe(0);
  });
});
