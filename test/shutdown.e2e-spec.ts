import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProbeModule } from './support/probe.module';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(30_000);

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
    for (const deadline = Date.now() + 2000; server.listening && Date.now() < deadline; ) {
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
