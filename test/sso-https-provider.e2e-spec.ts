import { readFileSync } from 'node:fs';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { DnsServer } from './support/dns-server';
import { Browser, RealIdp } from './support/oidc-idp';
import {
  CHILD_TEST_ENV,
  killChildren,
  logRecords,
  requireBuild,
  runCli,
  type RunningService,
  startService,
} from './support/processes';
import { freePort } from './support/redis-server';
import { connectionBody, proveDomains } from './support/sso-domains';
import { SsoFlows } from './support/sso-flow';
import { TestCertificates } from './support/tls-redis';

jest.setTimeout(120_000);

const PASSWORD = 'a-long-enough-password';
const SECRET = 'the-https-test-client-secret';

/**
 * A provider over https whose certificate a private CA signed (made with openssl, as a company's internal
 * Keycloak's is), against the built service. The service trusts such a CA the production way: Node's
 * NODE_EXTRA_CA_CERTS, set on the service's process, adds it to the CAs every https request checks (the outbound
 * policy's requests included). Without it the same provider is refused at PUT; with it, a member signs in, the
 * provider serving the e-mail at its UserInfo endpoint (its default).
 */
describe('single sign-on with a provider over https under a private CA', () => {
  let certificates: TestCertificates;
  let database: ProvisionedDatabase;
  let dns: DnsServer;
  let idp: RealIdp;
  let service: RunningService | undefined;
  let base: string;
  let env: Record<string, string>;
  let companyId: number;

  const cli = async (input: string, ...args: string[]) => {
    const result = await runCli(args, env, 40_000, input);
    if (result.code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  };
  const call = async (method: string, path: string, body?: unknown, jwt?: string) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(jwt ? { authorization: jwt } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const ownerJwt = async () =>
    (
      await call('POST', '/v1/users/authenticatefinish', {
        email: 'owner@https.example',
        password: PASSWORD,
        company_id: companyId,
      })
    ).body.jwt as string;
  const connection = () =>
    connectionBody(idp.issuer, ['https.example'], { client_id: 'staff-https', client_secret: SECRET });
  const start = async (extra: Record<string, string>) => {
    const listen = { PORT: String(new URL(base).port), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    service = await startService({ ...env, ...listen, ...extra }, 60_000);
  };

  beforeAll(async () => {
    requireBuild();
    certificates = TestCertificates.make();
    database = await provisionDatabase();
    dns = await DnsServer.start();
    base = `http://127.0.0.1:${await freePort()}`;
    env = { ...CHILD_TEST_ENV, ...database.env, JWT_SECRET: 'x'.repeat(40), DNS_SERVERS: dns.servers };
    companyId = Number((await cli('', 'company:create', '--name', 'Https Co')).id);
    for (const [email, permissions] of [
      ['owner@https.example', '*'],
      ['mia@https.example', 'products:read'],
    ]) {
      await cli(`${PASSWORD}\n`, 'employee:create', '--email', email, '--password', '-');
      await cli('', 'membership:add', '--email', email, '--company', String(companyId), '--permissions', permissions);
    }
    idp = new RealIdp(
      await RealIdp.freePort(),
      {
        id: 'staff-https',
        secret: SECRET,
        redirectUris: [`${base}/v1/sso/callback`],
        backchannelLogoutUri: `${base}/v1/sso/backchannel-logout`,
      },
      {
        tls: {
          key: readFileSync(certificates.file('server.key')),
          cert: readFileSync(certificates.file('server.pem')),
        },
      },
    );
    idp.accounts.set('mia', { email: 'mia@https.example', emailVerified: true, name: 'Mia' });
    await idp.start();
  });
  afterAll(async () => {
    await service?.stop().catch(() => undefined);
    await killChildren();
    await idp?.stop();
    await dns?.stop();
    await database?.drop();
    certificates?.remove();
  });

  it('refuses the provider while the service does not trust its CA (400 naming issuer)', async () => {
    // localhost is loopback: listed, so that the outbound policy lets the service reach this test's provider.
    await start({ SSO_INSECURE_ISSUERS: 'localhost' });
    try {
      const put = await call('PUT', '/v1/sso/connection', connection(), await ownerJwt());
      expect({ status: put.status, fields: put.body.details?.map((d: { field: string }) => d.field) }).toEqual({
        status: 400,
        fields: ['issuer'],
      });
      // The operator's log says why; the caller's answer does not.
      const logged = () => logRecords(service!.child.stdout).find((record) => record.msg === 'sso: issuer refused');
      for (let waited = 0; !logged() && waited < 2000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(String(logged()?.reason)).toMatch(/certificate/i);
      expect(JSON.stringify(put.body)).not.toMatch(/certificate/i);
    } finally {
      await service!.stop();
      service = undefined;
    }
  });

  it('with NODE_EXTRA_CA_CERTS naming the CA: connects, proves the domain, and signs a member in', async () => {
    await start({ SSO_INSECURE_ISSUERS: 'localhost', NODE_EXTRA_CA_CERTS: certificates.file('ca.pem') });
    const jwt = await ownerJwt();
    idp.hits.length = 0;
    const put = await call('PUT', '/v1/sso/connection', connection(), jwt);
    expect(put.status).toBe(200);
    expect(put.body.issuer).toMatch(/^https:\/\/localhost:/);
    await proveDomains(dns, put.body, () => call('POST', '/v1/sso/connection/domains/verify', undefined, jwt));
    // The service read the discovery document over https at PUT (the provider serves nothing else).
    expect(idp.hits).toContain('/.well-known/openid-configuration');
    idp.hits.length = 0;
    const flows = new SsoFlows(base);
    const signedIn = await flows.signIn(
      'mia',
      { email: 'mia@https.example' },
      new Browser(readFileSync(certificates.file('ca.pem'))),
    );
    expect({ error: signedIn.error, code: Boolean(signedIn.code) }).toEqual({ error: null, code: true });
    const session = await flows.exchange(signedIn.browser, signedIn.code!);
    expect({ status: session.status, email: session.body.employee?.email }).toEqual({
      status: 200,
      email: 'mia@https.example',
    });
    // Token, key set and UserInfo were all fetched by the service over https, trusting the private CA: the
    // provider listens for TLS only, so every request it counts came over https.
    expect(idp.hits).toEqual(expect.arrayContaining(['/token', '/jwks', '/me']));
  });
});
