import type { AddressInfo } from 'node:net';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { DnsServer } from './support/dns-server';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { Browser, RealIdp } from './support/oidc-idp';
import { connectionBody, proveDomains } from './support/sso-domains';
import { SsoFlows } from './support/sso-flow';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A flow started on instance A finishes on B (state in the database, the browser's binding cookie on the one
 * public host); a back-channel logout on B ends A's tokens. The provider is oidc-provider as it ships: the e-mail
 * only at its UserInfo endpoint, which B asks.
 */
describe('company single sign-on across two instances', () => {
  let database: ProvisionedDatabase;
  let dns: DnsServer;
  let a: TestApp;
  let b: TestApp;
  let idp: RealIdp;
  let baseA: string;
  let baseB: string;
  let acme: { id: number };

  const listen = async (t: TestApp) => {
    await t.app.listen(0, '127.0.0.1');
    return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    database = await provisionDatabase();
    dns = await DnsServer.start();
    const clock = new ManualClock();
    const env = { REDIS_URL, SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers };
    a = await startTestApp({ database, env, clock });
    b = await startTestApp({ database, env, clock });
    [baseA, baseB] = [await listen(a), await listen(b)];
    idp = new RealIdp(await RealIdp.freePort(), {
      id: 'staff-auth',
      secret: 'a-client-secret-of-the-test',
      redirectUris: [`${baseA}/v1/sso/callback`],
      // The provider reaches instance B only.
      backchannelLogoutUri: `${baseB}/v1/sso/backchannel-logout`,
    });
    await idp.start();
    [acme] = await createCompanies(a, 'Acme');
    const owner = await createAccount(a, [acme.id], ['*']);
    const member = await createAccount(a, [acme.id], ['products:read'], `m2-${process.pid}@acme2.example`);
    idp.accounts.set('member', { email: member.email, emailVerified: true });
    const ownerJwt = (await login(a, owner, acme.id)).jwt;
    const saved = await authed(a, ownerJwt)
      .put('/v1/sso/connection', connectionBody(idp.issuer, ['acme2.example']))
      .expect(200);
    // Proven through B: the proof is in the database, for every instance.
    await proveDomains(dns, saved.body, () => authed(b, ownerJwt).post('/v1/sso/connection/domains/verify'));
  });
  afterAll(async () => {
    await idp?.stop();
    await a?.close();
    await b?.close();
    await database?.drop();
    await dns?.stop();
  });

  it('starts on A, finishes on B, and B ends the session on A within 1 s when the provider logs out', async () => {
    const browser = new Browser();
    // The load balancer: the browser knows A's address only; the callback and the exchange reach B.
    browser.route = (url) => {
      if (!['/v1/sso/callback', '/v1/sso/exchange'].includes(url.pathname)) return url;
      const onB = new URL(url);
      onB.host = new URL(baseB).host;
      return onB;
    };
    const flows = new SsoFlows(baseA);
    const { code, error } = await flows.signIn('member', { company_id: acme.id }, browser);
    expect({ error, code: Boolean(code) }).toEqual({ error: null, code: true });
    const session = await flows.exchange(browser, code!);
    expect(session.status).toBe(200);
    expect(idp.hits).toContain('/me');
    await authed(a, session.body.jwt).get('/v1/users/sessions').expect(200);

    const loggedOutAt = Date.now();
    await browser.run(`${idp.issuer}/session/end`, null, (url) => url.pathname.endsWith('/session/end/success'));
    let status = 200;
    while (Date.now() - loggedOutAt < 1000 && status === 200) {
      status = (await authed(a, session.body.jwt).get('/v1/users/sessions')).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.log(
      `back-channel logout received by B, seen on A ${Date.now() - loggedOutAt} ms after the provider's logout`,
    );
    expect(status).not.toBe(200);
  });
});
