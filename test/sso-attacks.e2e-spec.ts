import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { DnsServer } from './support/dns-server';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { Browser, RealIdp } from './support/oidc-idp';
import { connectionBody, proveDomains } from './support/sso-domains';
import { SsoFlows } from './support/sso-flow';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 34's findings against single sign-on, each tried as the attacker would, from outside: a real provider of
 * the victim's company (oidc-provider), a provider the attacker runs (jose), a real DNS server (dnsmasq) and two
 * browsers. Each test failed on the code before the fix.
 */
describe('single sign-on against an attacker (issue 34)', () => {
  let t: TestApp;
  let base: string;
  let dns: DnsServer;
  let idp: RealIdp;
  let mallorysIdp: JoseIdp;
  let logoutIdp: JoseIdp;
  let flows: SsoFlows;
  let victim: { id: number };
  let attacker: { id: number };
  let logoutCo: { id: number };
  let ceo: Account;
  let staff: Account;
  let victimJwt: string;
  let malloryJwt: string;
  let logoutOwnerJwt: string;

  const connection = (issuer: string, clientId: string, domains: string[], jit?: string[]) =>
    connectionBody(issuer, domains, { client_id: clientId, jit });
  const connect = (jwt: string, body: object) => authed(t, jwt).put('/v1/sso/connection', body);
  const prove = async (jwt: string, body: object) => {
    const saved = await connect(jwt, body).expect(200);
    await proveDomains(dns, saved.body, () => authed(t, jwt).post('/v1/sso/connection/domains/verify'));
  };

  beforeAll(async () => {
    dns = await DnsServer.start();
    t = await startTestApp({ env: { SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers } });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    flows = new SsoFlows(base);
    // oidc-provider as it ships (conformIdTokenClaims): the e-mail and email_verified at UserInfo only.
    idp = new RealIdp(await RealIdp.freePort(), {
      id: 'victim-client',
      secret: 'a-client-secret-of-the-test',
      redirectUris: [`${base}/v1/sso/callback`],
      backchannelLogoutUri: `${base}/v1/sso/backchannel-logout`,
    });
    await idp.start();
    mallorysIdp = new JoseIdp('mallory-client');
    logoutIdp = new JoseIdp('logout-client');
    await Promise.all([mallorysIdp.start(), logoutIdp.start()]);
    [victim, attacker, logoutCo] = await createCompanies(t, 'Victim Corp', 'Attacker Co', 'Logout Co');
    const owner = await createAccount(t, [victim.id], ['*'], `owner-${process.pid}@victim.example`);
    victimJwt = (await login(t, owner, victim.id)).jwt;
    ceo = await createAccount(t, [victim.id], ['*'], `ceo-${process.pid}@victim.example`);
    idp.accounts.set('ceo', { email: ceo.email, emailVerified: true, name: 'The CEO' });
    staff = await createAccount(t, [victim.id], ['products:read'], `staff-${process.pid}@victim-hq.example`);
    idp.accounts.set('staff', { email: staff.email, emailVerified: true, name: 'Staff' });
    // The victim's connection, its headquarters' domain proven; victim.example is not listed yet (finding 1).
    await prove(victimJwt, connection(idp.issuer, 'victim-client', ['victim-hq.example']));
    const mallory = await createAccount(t, [attacker.id], ['*'], `mallory-${process.pid}@attacker.example`);
    malloryJwt = (await login(t, mallory, attacker.id)).jwt;
    const logoutOwner = await createAccount(t, [logoutCo.id], ['*']);
    logoutOwnerJwt = (await login(t, logoutOwner, logoutCo.id)).jwt;
  });
  afterAll(async () => {
    await idp?.stop();
    await mallorysIdp?.stop();
    await logoutIdp?.stop();
    await t?.close();
    await dns?.stop();
  });

  it('finding 1: a domain listed without proof speaks for nobody, and its real owner still gets it', async () => {
    await connect(malloryJwt, connection(mallorysIdp.issuer, 'mallory-client', ['victim.example'], ['*'])).expect(200);
    mallorysIdp.email = ceo.email;
    const taken = await flows.signIn(null, { company_id: attacker.id });
    expect({ code: taken.code, error: taken.error }).toEqual({ code: null, error: 'error_invalid_credentials' });
    const memberships = await t.app
      .get(DataSource)
      .query('SELECT company_id FROM membership WHERE employee_id = $1 ORDER BY company_id', [ceo.id]);
    expect(memberships).toEqual([{ company_id: victim.id }]);

    // The owner of the domain lists it too and proves it: Mallory's claim is dropped, and she cannot list it again.
    await prove(victimJwt, connection(idp.issuer, 'victim-client', ['victim-hq.example', 'victim.example']));
    const hers = await authed(t, malloryJwt).get('/v1/sso/connection').expect(200);
    expect(hers.body.email_domains).toEqual([]);
    const again = connect(malloryJwt, connection(mallorysIdp.issuer, 'mallory-client', ['victim.example'], ['*']));
    expectError(await again, 409, 'error_conflict');
    const byEmail = await flows.start(new Browser(), { email: ceo.email });
    expect(new URL(byEmail.body.authorization_url).origin).toBe(new URL(idp.issuer).origin);
  });

  it('finding 2: return_to with a tab, CR/LF or a backslash is 400 naming return_to, never a redirect or a 500', async () => {
    for (const returnTo of [
      '/\t/attacker.example/steal',
      '/x\r\nSet-Cookie: a=b',
      '/\\attacker.example',
      '/\n/a.example',
    ]) {
      const res = await t.http().post('/v1/sso/start').send({ company_id: victim.id, return_to: returnTo });
      expectInvalid(res, 'return_to');
    }
  });

  it('finding 6: a code planted in another browser is refused (login CSRF), a leaked one is useless elsewhere', async () => {
    const attackers = new Browser();
    const started = await flows.start(attackers, { company_id: victim.id });
    const callback = await flows.toCallback(attackers, started.body.authorization_url, 'staff');
    // The victim's browser is sent to the attacker's callback URL: no flow of this browser.
    const planted = await flows.finishAt(new Browser(), callback);
    expect({ code: planted.code, error: planted.error }).toEqual({ code: null, error: 'error_login_ticket_invalid' });
    // The attacker's own browser finishes; the code leaks, and is refused from anywhere else.
    const own = await flows.finishAt(attackers, callback);
    expect(own.code).toBeTruthy();
    expectError(
      await t.http().post('/v1/sso/exchange').send({ sso_code: own.code }),
      400,
      'error_login_ticket_invalid',
    );
    const elsewhere = await flows.exchange(new Browser(), own.code!);
    expect({ status: elsewhere.status, error: elsewhere.body.error }).toEqual({
      status: 400,
      error: ['error_login_ticket_invalid'],
    });
    expect((await flows.exchange(attackers, own.code!)).status).toBe(200);
  });

  it('finding 6: a replayed back-channel logout token is 400 and ends nothing', async () => {
    await prove(logoutOwnerJwt, connection(logoutIdp.issuer, 'logout-client', ['logout.example']));
    const member = await createAccount(t, [logoutCo.id], ['products:read'], `m-${process.pid}@logout.example`);
    logoutIdp.email = member.email;
    const session = async () => {
      const { code, browser } = await flows.signIn(null, { company_id: logoutCo.id });
      const res = await flows.exchange(browser, code!);
      expect(res.status).toBe(200);
      return res.body.jwt as string;
    };
    const post = async (token: string) =>
      (
        await fetch(`${base}/v1/sso/backchannel-logout`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ logout_token: token }),
        })
      ).status;

    const first = await session();
    const token = await logoutIdp.logoutToken();
    expect(await post(token)).toBe(200);
    expectError(await authed(t, first).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    const later = await session();
    expect(await post(token)).toBe(400);
    // A jti longer than the service keeps is refused as invalid, not a 500.
    expect(await post(await logoutIdp.logoutToken('j'.repeat(300)))).toBe(400);
    await authed(t, later).get('/v1/users/me').expect(200);
    // A new logout token (another jti) still works.
    expect(await post(await logoutIdp.logoutToken())).toBe(200);
    expectError(await authed(t, later).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
  });
});

describe('the redirect URI once PUBLIC_URL is set (issue 34, finding 6)', () => {
  const PUBLIC_URL = 'https://staff.example.test';
  let t: TestApp;
  let idp: JoseIdp;
  let company: { id: number };
  let jwt: string;

  beforeAll(async () => {
    idp = new JoseIdp('staff-auth');
    await idp.start();
    // TRUST_PROXY: even a forwarded host the service believes for client addresses does not choose it.
    t = await startTestApp({ env: { SSO_INSECURE_ISSUERS: '127.0.0.1', PUBLIC_URL, TRUST_PROXY: '1' } });
    [company] = await createCompanies(t, 'Public Co');
    jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    await authed(t, jwt)
      .put('/v1/sso/connection', connectionBody(idp.issuer, ['public.example']))
      .expect(200);
  });
  afterAll(async () => {
    await idp?.stop();
    await t?.close();
  });

  it.each([
    { host: 'evil.example' },
    { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example' },
  ])('a Host header never chooses where the provider sends codes (%p)', async (headers) => {
    const res = await t.http().post('/v1/sso/start').set(headers).send({ company_id: company.id, return_to: '/admin' });
    expect(res.status).toBe(200);
    const redirectUri = new URL(res.body.authorization_url).searchParams.get('redirect_uri');
    expect(redirectUri).toBe(`${PUBLIC_URL}/v1/sso/callback`);
    const shown = await authed(t, jwt).get('/v1/sso/connection').set(headers).expect(200);
    expect(shown.body.redirect_uri).toBe(`${PUBLIC_URL}/v1/sso/callback`);
    // Over https, the cookie that binds the flow to the browser is Secure as well.
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Secure/i);
  });
});

describe('production without PUBLIC_URL', () => {
  let t: TestApp;
  let idp: JoseIdp;

  beforeAll(async () => {
    idp = new JoseIdp('staff-auth');
    await idp.start();
    t = await startTestApp({ env: { NODE_ENV: 'production', SSO_INSECURE_ISSUERS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await idp?.stop();
    await t?.close();
  });

  it('starts no flow (503 saying PUBLIC_URL is not set) and shows no redirect URI, whatever the Host', async () => {
    const [company] = await createCompanies(t, 'Unconfigured');
    const jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    const saved = await authed(t, jwt)
      .put('/v1/sso/connection', connectionBody(idp.issuer, ['unconfigured.example']))
      .set('host', 'evil.example');
    expect({ status: saved.status, redirect: saved.body.redirect_uri }).toEqual({ status: 200, redirect: null });
    const res = await t
      .http()
      .post('/v1/sso/start')
      .set('host', 'evil.example')
      .send({ company_id: company.id, return_to: '/admin' });
    expectError(res, 503, 'error_service_unavailable');
    expect(res.body.message).toMatch(/PUBLIC_URL/);
  });

  it('answers a company without a connection 404, as everywhere: there is no flow a setting could stop', async () => {
    // The hostile mix found it: a start for any company id was a 5xx on a production service without PUBLIC_URL.
    const [company] = await createCompanies(t, 'No connection');
    for (const body of [{ company_id: company.id }, { email: 'someone@nowhere.example' }]) {
      const res = await t
        .http()
        .post('/v1/sso/start')
        .send({ ...body, return_to: '/admin' });
      expectError(res, 404, 'error_not_found');
    }
  });
});
