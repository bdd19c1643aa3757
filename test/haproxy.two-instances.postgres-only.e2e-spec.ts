import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { createFleetAccount, type FleetAccount, startFleet } from './support/fleet';
import { HaProxy } from './support/haproxy';
import { killChildren, requireBuild, type RunningService } from './support/processes';

const BALANCER_SOURCE = '127.0.0.2';
const CLIENT = '127.0.0.3';
const FORGED = '203.0.113.9';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One request from a chosen loopback address, with a forged X-Forwarded-For. */
function send(
  base: string,
  method: string,
  path: string,
  options: { jwt?: string; body?: unknown } = {},
): Promise<Reply> {
  const { hostname, port } = new URL(base);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: hostname,
        port,
        method,
        path,
        localAddress: CLIENT,
        headers: {
          'x-forwarded-for': FORGED,
          ...(options.jwt ? { authorization: options.jwt } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // an empty 204
          }
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

const clientIpOf = (reply: Reply) => String(reply.headers['x-rate-limit-identifier']).split('|')[0];

/**
 * docs/contract.md "Operations": behind a load balancer named by TRUST_PROXY, the client IP is the one the balancer
 * saw, and a client that connects directly cannot set it with X-Forwarded-For. HAProxy of the test's own in
 * front of two built instances (it connects from 127.0.0.2, which TRUST_PROXY names; clients come from 127.0.0.3).
 */
describe('logins and revocation through HAProxy with TRUST_PROXY', () => {
  let database: ProvisionedDatabase;
  let services: RunningService[];
  let haproxy: HaProxy;
  let account: FleetAccount;

  beforeAll(async () => {
    requireBuild();
    database = await provisionDatabase('postgres');
    services = await startFleet(2, { ...database.env, TRUST_PROXY: BALANCER_SOURCE });
    haproxy = await HaProxy.start(
      services.map((service) => service.url),
      BALANCER_SOURCE,
    );
    account = await createFleetAccount(database.url!);
  }, 60_000);

  afterAll(async () => {
    await haproxy?.stop();
    await killChildren();
    await database?.drop();
  });

  const logIn = (base: string) =>
    send(base, 'POST', '/v1/users/authenticatefinish', {
      body: { email: account.email, password: account.password, company_id: account.companies[0] },
    });

  it('takes the client IP the balancer saw, never the forged header, and a direct client cannot set it', async () => {
    const through = await logIn(haproxy.url);
    expect(through.status).toBe(200);
    expect(clientIpOf(through)).toBe(CLIENT);
    const jwt = (through.body as { jwt: string }).jwt;
    const sessions = await send(haproxy.url, 'GET', '/v1/users/sessions', { jwt });
    expect(JSON.stringify(sessions.body)).toContain(CLIENT);
    expect(JSON.stringify(sessions.body)).not.toContain(FORGED);

    for (const service of services) {
      const direct = await send(service.url, 'GET', '/v1/users/me', { jwt });
      expect(direct.status).toBe(200);
      expect(clientIpOf(direct)).toBe(CLIENT);
    }
  });

  it('refuses a token logged out through the balancer on every instance behind it, at once', async () => {
    const jwt = ((await logIn(haproxy.url)).body as { jwt: string }).jwt;
    // Round robin: consecutive requests reach both instances, so both have the credential cached.
    for (let i = 0; i < 4; i++) expect((await send(haproxy.url, 'GET', '/v1/users/me', { jwt })).status).toBe(200);
    expect((await send(haproxy.url, 'POST', '/v1/users/logout', { jwt })).status).toBe(204);
    const answered = performance.now();
    for (let i = 0; i < 4; i++) {
      const after = await send(haproxy.url, 'GET', '/v1/users/me', { jwt });
      expect(after.body).toMatchObject({ error: ['error_jwt_blacklisted'] });
    }
    expect(performance.now() - answered).toBeLessThan(1000);
  });
});
