import type { AddressInfo } from 'node:net';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { Browser, RealIdp } from './support/oidc-idp';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A flow started on instance A finishes on B (state in the database); a back-channel logout on B ends A's tokens. */
describe('company single sign-on across two instances', () => {
  let database: ProvisionedDatabase;
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
    const clock = new ManualClock();
    const env = { REDIS_URL, SSO_INSECURE_ISSUERS: '127.0.0.1' };
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
    idp.accounts.set('member', { email: member.email });
    const ownerJwt = (await login(a, owner, acme.id)).jwt;
    await authed(a, ownerJwt)
      .put('/v1/sso/connection', {
        issuer: idp.issuer,
        client_id: 'staff-auth',
        client_secret: 'a-client-secret-of-the-test',
        email_domains: ['acme2.example'],
        enforced: false,
        jit: { enabled: false, permissions: [] },
      })
      .expect(200);
  });
  afterAll(async () => {
    await idp?.stop();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('starts on A, finishes on B, and B ends the session on A within 1 s when the provider logs out', async () => {
    const started = await fetch(`${baseA}/v1/sso/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ company_id: acme.id, return_to: '/admin' }),
    });
    const { authorization_url } = (await started.json()) as { authorization_url: string };
    const browser = new Browser();
    const callback = await browser.run(authorization_url, 'member', (url) => url.pathname === '/v1/sso/callback');
    // The load balancer sends the callback to B.
    const onB = new URL(callback);
    onB.host = new URL(baseB).host;
    const res = await browser.request(onB.toString());
    expect(res.status).toBe(303);
    const code = new URLSearchParams(new URL(res.headers.get('location')!, baseB).hash.slice(1)).get('sso_code');
    expect({ location: res.headers.get('location'), code: Boolean(code) }).toMatchObject({ code: true });
    const session = await b.http().post('/v1/sso/exchange').send({ sso_code: code }).expect(200);
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
