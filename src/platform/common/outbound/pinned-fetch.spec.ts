import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressPolicy } from './address-policy';
import { OutboundRefused, pinnedFetch } from './pinned-fetch';
import { systemHostResolver } from './pinned-request';

describe('pinnedFetch', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ method?: string; url?: string; body: string; headers: IncomingMessage['headers'] }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, body, headers: request.headers });
        if (request.url === '/moved') {
          response.writeHead(302, { location: '/json' });
          return response.end();
        }
        if (request.url === '/big') return response.end('x'.repeat(5000));
        if (request.url === '/silent') return; // never answers
        response.writeHead(200, { 'content-type': 'application/json', 'x-two': ['a', 'b'] });
        response.end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  const fetchWith = (allow: string[], timeoutMs = 2000) =>
    pinnedFetch({
      policy: new AddressPolicy(allow),
      resolveHost: systemHostResolver,
      timeoutMs,
      maxBodyBytes: 1000,
      userAgent: 'test/1',
    });

  it('answers a Response with the status, headers and body, and sends the method, headers and form body', async () => {
    const res = await fetchWith(['127.0.0.1'])(`http://127.0.0.1:${port}/json`, {
      method: 'POST',
      headers: { authorization: 'Basic x' },
      body: new URLSearchParams({ a: '1' }),
    });
    expect({ status: res.status, json: await res.json(), two: res.headers.get('x-two') }).toEqual({
      status: 200,
      json: { ok: true },
      two: 'a, b',
    });
    expect(seen[0]).toMatchObject({ method: 'POST', body: 'a=1' });
    expect(seen[0].headers).toMatchObject({
      authorization: 'Basic x',
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'test/1',
    });
  });

  it('follows no redirect: the 302 is the answer', async () => {
    const res = await fetchWith(['127.0.0.1'])(`http://127.0.0.1:${port}/moved`);
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 302, location: '/json' });
    expect(seen.map((request) => request.url)).toEqual(['/moved']);
  });

  it.each([
    (p: number) => `http://127.0.0.1:${p}/json`,
    (p: number) => `http://2130706433:${p}/json`,
    (p: number) => `http://localhost:${p}/json`,
    (p: number) => `http://[::ffff:127.0.0.1]:${p}/json`,
    (p: number) => `file:///etc/passwd?${p}`,
    (p: number) => `http://user:pass@example.com:${p}/`,
  ])('refuses %s before any connection (OutboundRefused) without an allow-list', async (url) => {
    await expect(fetchWith([])(url(port))).rejects.toBeInstanceOf(OutboundRefused);
    expect(seen).toEqual([]);
  });

  it('refuses an answer larger than its bound', async () => {
    await expect(fetchWith(['127.0.0.1'])(`http://127.0.0.1:${port}/big`)).rejects.toBeInstanceOf(OutboundRefused);
  });

  it('gives up at its deadline when the server never answers', async () => {
    const began = Date.now();
    await expect(fetchWith(['127.0.0.1'], 300)(`http://127.0.0.1:${port}/silent`)).rejects.toMatchObject({
      name: expect.stringMatching(/AbortError|TimeoutError/),
    });
    expect(Date.now() - began).toBeLessThan(2000);
  });
});
