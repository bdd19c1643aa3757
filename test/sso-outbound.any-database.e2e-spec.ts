import { createServer, type Server } from 'node:net';
import { expectInvalid } from './support/expectations';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 34, finding 4: the issuer's discovery was fetched with plain `fetch`, so `PUT /v1/sso/connection` probed
 * any address for its caller and told an open port ("operation timed out" after 5 s) from a closed one ("fetch
 * failed" at once). Every request to a provider now goes through the outbound address policy of event streams
 * and addimagefromurl: each spelling of a loopback, private, link-local or special-use address is refused
 * before a connection is made, with one message, at once. Nothing here is in SSO_INSECURE_ISSUERS.
 */
describe('SSO provider requests under the outbound address policy', () => {
  let t: TestApp;
  let jwt: string;
  let port: number;
  const listeners: Server[] = [];
  let connections = 0;

  /** A TCP listener on a loopback address, counting whoever connects (none may). */
  const listen = (host: string, at = 0) =>
    new Promise<number>((resolve, reject) => {
      const server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      server.once('error', reject);
      server.listen(at, host, () => resolve((server.address() as { port: number }).port));
      listeners.push(server);
    });

  beforeAll(async () => {
    port = await listen('127.0.0.1');
    await listen('::1', port).catch(() => undefined);
    t = await startTestApp();
    const [company] = await createCompanies(t, 'Prober');
    jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
  });
  afterAll(async () => {
    await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
    await t?.close();
  });

  const spellings = (p: number) => [
    `https://2130706433:${p}`,
    `https://0x7f000001:${p}`,
    `https://0x7f.0.0.1:${p}`,
    `https://0177.0.0.1:${p}`,
    `https://127.1:${p}`,
    `https://127.0.0.1:${p}`,
    `https://127.0.0.2:${p}`,
    `https://localhost:${p}`,
    `https://LOCALHOST.:${p}`,
    `https://[::1]:${p}`,
    `https://[0:0:0:0:0:0:0:1]:${p}`,
    `https://[::ffff:127.0.0.1]:${p}`,
    `https://[::ffff:7f00:1]:${p}`,
    `https://[64:ff9b::7f00:1]:${p}`,
    `https://[::]:${p}`,
    `https://0.0.0.0:${p}`,
    `https://0:${p}`,
    `https://10.0.0.1:${p}`,
    `https://172.16.0.1:${p}`,
    `https://192.168.1.1:${p}`,
    `https://100.64.0.1:${p}`,
    `https://169.254.169.254`,
    `https://[fe80::1]:${p}`,
    `https://[fd00::1]:${p}`,
    `https://[::ffff:a9fe:a9fe]`,
    `https://[64:ff9b::a00:1]:${p}`,
    `https://198.18.0.1:${p}`,
    `https://224.0.0.1:${p}`,
  ];

  it('refuses every spelling before connecting: 400 naming issuer, one message, each under 1 s', async () => {
    const messages = new Set<string>();
    const slow: string[] = [];
    for (const issuer of spellings(port)) {
      const began = performance.now();
      const res = await authed(t, jwt).put('/v1/sso/connection', {
        issuer,
        client_id: 'staff-auth',
        client_secret: 'a-client-secret-of-the-test',
        email_domains: ['prober.example'],
        enforced: false,
        jit: { enabled: false, permissions: [] },
      });
      const took = performance.now() - began;
      if (took >= 1000) slow.push(`${issuer} took ${Math.round(took)} ms`);
      expectInvalid(res, 'issuer');
      messages.add(`${res.body.message} | ${JSON.stringify(res.body.details)}`);
    }
    expect(slow).toEqual([]);
    expect([...messages]).toHaveLength(1);
    expect(connections).toBe(0);
    const [message] = messages;
    console.log(`the one answer for ${spellings(port).length} addresses: ${message}`);
    expect(message).not.toMatch(/timed out|fetch failed|ECONN|refused|reset/i);
  });
});
