import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { RelyingParty } from '../src/identity/sso/relying-party';
import { auditRows } from './support/audit-rows';
import { DnsServer } from './support/dns-server';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp, type TokenFlaw } from './support/jose-idp';
import { ManualClock } from './support/manual-clock';
import { Browser, RealIdp } from './support/oidc-idp';
import { proveDomains } from './support/sso-domains';
import { SsoFlows } from './support/sso-flow';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Company single sign-on against a real provider (panva's oidc-provider, with its own login and consent pages,
 * here putting the e-mail in the ID token as Entra ID and Google do) driven as a browser would, and a jose-built
 * provider for the ID tokens oidc-provider never signs. The companies prove their domains through the verify
 * route against a real DNS server (dnsmasq). The UserInfo-only default of oidc-provider: sso-providers.e2e-spec.
 */
describe('company single sign-on (OIDC)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let base: string;
  let dns: DnsServer;
  let flows: SsoFlows;
  let idp: RealIdp;
  let flawed: JoseIdp;
  let acme: { id: number };
  let beta: { id: number };
  let flawCo: { id: number };
  let owner: Account;
  let ownerJwt: string;
  let member: Account;

  const connect = (jwt: string, body: Record<string, unknown>) => authed(t, jwt).put('/v1/sso/connection', body);
  const connectProven = async (jwt: string, body: Record<string, unknown>) =>
    proveDomains(dns, (await connect(jwt, body).expect(200)).body, () =>
      authed(t, jwt).post('/v1/sso/connection/domains/verify'),
    );
  const connection = (overrides: Record<string, unknown> = {}) => ({
    issuer: idp.issuer,
    client_id: 'staff-auth',
    client_secret: 'a-client-secret-of-the-test',
    email_domains: ['acme.example'],
    enforced: false,
    jit: { enabled: false, permissions: [] },
    ...overrides,
  });
  const start = (body: Record<string, unknown>, browser = new Browser()) => flows.start(browser, body);
  const atCallback = (url: URL) => url.pathname === '/v1/sso/callback';
  /** Through the provider's pages up to the service's callback, then the callback's answer (the fragment). */
  const signIn = (
    login: string | null,
    body: Record<string, unknown> = { company_id: acme.id },
    browser = new Browser(),
  ) => flows.signIn(login, body, browser);
  const finishAt = (browser: Browser, callback: URL) => flows.finishAt(browser, callback);
  /** The exchange from the browser that signed in (its binding cookie). */
  const exchange = async (browser: Browser, code: string) => {
    const res = await flows.exchange(browser, code);
    return { status: res.status, body: res.body, headers: res.headers };
  };
  const exchanged = async (signedIn: { browser: Browser; code: string | null }) => {
    const res = await exchange(signedIn.browser, signedIn.code!);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    return res.body;
  };

  beforeAll(async () => {
    clock = new ManualClock();
    const idpPort = await RealIdp.freePort();
    dns = await DnsServer.start();
    t = await startTestApp({ clock, env: { SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers } });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    flows = new SsoFlows(base);
    idp = new RealIdp(
      idpPort,
      {
        id: 'staff-auth',
        secret: 'a-client-secret-of-the-test',
        redirectUris: [`${base}/v1/sso/callback`],
        backchannelLogoutUri: `${base}/v1/sso/backchannel-logout`,
      },
      { claimsIn: 'id_token' },
    );
    await idp.start();
    flawed = new JoseIdp('flawed-client');
    await flawed.start();
    [acme, beta, flawCo] = await createCompanies(t, 'Acme', 'Beta', 'Flawed');
    owner = await createAccount(t, [acme.id, beta.id, flawCo.id], ['*']);
    ownerJwt = (await login(t, owner, acme.id)).jwt;
    member = await createAccount(t, [acme.id, beta.id], ['products:read'], `member-${process.pid}@acme.example`);
    idp.accounts.set('member', { email: member.email, emailVerified: true, name: 'Member' });
    await connectProven(ownerJwt, connection());
    const flawJwt = (await login(t, owner, flawCo.id)).jwt;
    await connectProven(flawJwt, {
      ...connection(),
      issuer: flawed.issuer,
      client_id: 'flawed-client',
      email_domains: ['flawed.example'],
    });
  });
  afterAll(async () => {
    await idp?.stop();
    await flawed?.stop();
    await t?.close();
    await dns?.stop();
  });

  it('keeps the connection without its secret (sealed at rest) and refuses a domain of another company', async () => {
    const res = await authed(t, ownerJwt).get('/v1/sso/connection').expect(200);
    expect(res.body).toMatchObject({
      issuer: idp.issuer,
      client_id: 'staff-auth',
      email_domains: [
        {
          domain: 'acme.example',
          verified: true,
          dns_txt: { name: '_staff-auth-challenge.acme.example', value: expect.stringMatching(/^staff-auth-domain/) },
        },
      ],
    });
    expect(JSON.stringify(res.body)).not.toContain('a-client-secret');
    const [row] = await t.app
      .get(DataSource)
      .query<Array<{ client_secret: string }>>('SELECT client_secret FROM sso_connection WHERE company_id = $1', [
        acme.id,
      ]);
    expect(row.client_secret).not.toContain('a-client-secret');
    const betaJwt = (await login(t, owner, beta.id)).jwt;
    expectError(await connect(betaJwt, connection()), 409, 'error_conflict');
    const down = await connect(betaJwt, connection({ issuer: 'http://127.0.0.1:9', email_domains: ['beta.example'] }));
    expectInvalid(down, 'issuer');
    expectInvalid(
      await connect(betaJwt, connection({ issuer: 'http://idp.example', email_domains: ['b.example'] })),
      'issuer',
    );
    const events = await auditRows(t, acme.id, 'sso.connection_changed');
    expect(events.length).toBeGreaterThan(0);
  });

  it('signs a member in through the provider: 303 with #sso_code, exchanged once for a session with method sso', async () => {
    idp.hits.length = 0;
    const { code, location, browser } = await signIn('member');
    expect(location.pathname).toBe('/admin');
    expect(code).toBeTruthy();
    const res = await exchange(browser, code!);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.company.id).toBe(acme.id);
    expect(res.body.employee.email).toBe(member.email);
    const listed = (await authed(t, res.body.jwt).get('/v1/users/sessions').expect(200)).body.sessions as Array<{
      id: string;
      method: string;
    }>;
    expect(listed.find((s) => s.id === res.body.session_id)?.method).toBe('sso');
    const succeeded = await auditRows(t, acme.id, 'login.succeeded');
    expect(succeeded.at(-1)).toMatchObject({ details: { method: 'sso' } });
    // Replayed code: refused.
    expectError(await exchange(browser, code!), 400, 'error_login_ticket_invalid');
    const firstLogin = [...idp.hits];
    idp.hits.length = 0;
    await exchanged(await signIn('member'));
    console.log(
      `provider round trips: first login ${JSON.stringify(firstLogin)}, next login ${JSON.stringify(idp.hits)}`,
    );
    expect(idp.hits.length).toBeLessThanOrEqual(2);
    expect(t.app.get(RelyingParty).calls.length).toBeGreaterThan(0);
  });

  it('refuses a late sso_code (60 s) and a replayed state', async () => {
    const { code, browser, callback } = await signIn('member');
    clock.advance(61_000);
    expectError(await exchange(browser, code!), 400, 'error_login_ticket_invalid');
    clock.advance(-61_000);
    const replay = await finishAt(browser, callback);
    expect(replay.error).toBe('error_login_ticket_invalid');
  });

  it('a flow older than 10 minutes cannot finish', async () => {
    const browser = new Browser();
    const started = await start({ company_id: acme.id }, browser);
    const callback = await browser.run(started.body.authorization_url, 'member', atCallback);
    clock.advance(10 * 60_000 + 1000);
    try {
      expect((await finishAt(browser, callback)).error).toBe('error_login_ticket_invalid');
    } finally {
      clock.advance(-(10 * 60_000 + 1000));
    }
  });

  it('sso:manage reads and tests the connection; changing it or proving domains needs *', async () => {
    const admin = await createAccount(t, [acme.id], ['sso:manage', 'products:read']);
    const jwt = (await login(t, admin, acme.id)).jwt;
    await authed(t, jwt).get('/v1/sso/connection').expect(200);
    const test = await start({ company_id: acme.id });
    expect(test.status).toBe(200);
    const put = await connect(jwt, connection({ jit: { enabled: true, permissions: ['products:read'] } }));
    expectError(put, 403, 'error_permission_denied');
    expectError(await authed(t, jwt).post('/v1/sso/connection/domains/verify'), 403, 'error_permission_denied');
    expectError(await authed(t, jwt).delete('/v1/sso/connection'), 403, 'error_permission_denied');
    const still = await authed(t, ownerJwt).get('/v1/sso/connection').expect(200);
    expect(still.body.jit).toEqual({ enabled: false, permissions: [] });
  });

  it('JIT off: a stranger of the domain is refused; JIT on: the account and membership are created', async () => {
    const email = `newcomer-${process.pid}@acme.example`;
    idp.accounts.set('newcomer', { email, emailVerified: true });
    const refused = await signIn('newcomer');
    expect(refused.error).toBe('error_company_not_member');
    await connect(ownerJwt, connection({ jit: { enabled: true, permissions: ['products:read'] } })).expect(200);
    const admitted = await exchanged(await signIn('newcomer', { email }));
    expect(admitted.employee.email).toBe(email);
    const created = await auditRows(t, acme.id, 'employee.created');
    expect(created.some((row) => JSON.stringify(row).includes(email))).toBe(true);
    expect((await auditRows(t, acme.id, 'membership.added')).some((row) => JSON.stringify(row).includes(email))).toBe(
      true,
    );
    // No password works for it.
    const pw = await t.http().post('/v1/users/authenticateinit').send({ email, password: '!no-password' });
    expect(pw.status).toBe(401);
    await connect(ownerJwt, connection()).expect(200);
  });

  it("refuses an unverified e-mail and one outside the connection's domains", async () => {
    idp.accounts.set('unverified', { email: `u-${process.pid}@acme.example`, emailVerified: false });
    expect((await signIn('unverified')).error).toBe('error_invalid_credentials');
    idp.accounts.set('outsider', { email: `o-${process.pid}@elsewhere.example`, emailVerified: true });
    expect((await signIn('outsider')).error).toBe('error_invalid_credentials');
    const failed = await auditRows(t, acme.id, 'login.failed');
    expect(failed.map((row) => (row.details as { reason?: string }).reason)).toEqual(
      expect.arrayContaining(['email_not_verified', 'email_domain_not_connected']),
    );
  });

  it.each<TokenFlaw>(['wrong_aud', 'wrong_nonce', 'no_nonce', 'other_iss', 'alg_none', 'expired', 'unverified'])(
    'refuses an ID token with the flaw %s',
    async (flaw) => {
      flawed.flaw = flaw;
      const { error, code } = await signIn(null, { company_id: flawCo.id });
      expect(code).toBeNull();
      expect(error).toBe('error_invalid_credentials');
    },
  );

  it("accepts the jose provider's sound token (the flawed cases above fail for their flaw alone)", async () => {
    flawed.flaw = 'none';
    flawed.email = owner.email.replace(/@.*/, '@flawed.example');
    const { error } = await signIn(null, { company_id: flawCo.id });
    // Signed, right audience, nonce and issuer: only membership is missing.
    expect(error).toBe('error_company_not_member');
  });

  it('keeps working when the provider rotates its signing key between two logins', async () => {
    await exchanged(await signIn('member'));
    await idp.rotateKey();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await signIn('member');
    expect(second.error).toBeNull();
    await exchanged(second);
  });

  it('answers a clear error, never a 500, when the provider is down', async () => {
    const browser = new Browser();
    const started = await start({ company_id: acme.id }, browser);
    const callback = await browser.run(started.body.authorization_url, 'member', atCallback);
    await idp.stop();
    try {
      const { error } = await finishAt(browser, callback);
      expect(error).toBe('error_service_unavailable');
    } finally {
      await idp.start();
    }
  });

  it('enforced: password login, invitation acceptance and a switch from a password session are refused', async () => {
    await connect(ownerJwt, connection({ enforced: true })).expect(200);
    try {
      const init = await t
        .http()
        .post('/v1/users/authenticateinit')
        .send({ email: member.email, password: member.password })
        .expect(200);
      expect(init.body.companies).toEqual(
        expect.arrayContaining([
          { id: acme.id, name: 'Acme', sso: true },
          { id: beta.id, name: 'Beta', sso: false },
        ]),
      );
      const finish = await t
        .http()
        .post('/v1/users/authenticatefinish')
        .send({ email: member.email, password: member.password, company_id: acme.id });
      expectError(finish, 403, 'error_sso_required');
      const invitation = await authed(t, ownerJwt).post('/v1/users/invitations', {
        email: `inv-${process.pid}@acme.example`,
        permissions: [],
      });
      if (invitation.status === 201) {
        const accept = await t
          .http()
          .post('/v1/users/invitations/accept')
          .send({
            email: `inv-${process.pid}@acme.example`,
            code: invitation.body.code,
            password: 'Invited-Walrus-3391',
            name: 'Invitee',
          });
        expectError(accept, 403, 'error_sso_required');
      }
      const betaSession = await login(t, member, beta.id);
      const sw = await authed(t, betaSession.jwt).post('/v1/users/changeworkingcompany', { company_id: acme.id });
      expectError(sw, 403, 'error_sso_required');
      // A session that signed in through Acme's provider is Acme's: Beta does not trust that provider
      // (test/sso-session-binding.e2e-spec.ts has the whole matrix).
      const sso = await exchanged(await signIn('member'));
      expectError(
        await authed(t, sso.jwt).post('/v1/users/changeworkingcompany', { company_id: beta.id }),
        403,
        'error_login_method_not_accepted',
      );
      await authed(t, sso.jwt).get('/v1/users/me').expect(200);
    } finally {
      await connect(ownerJwt, connection()).expect(200);
    }
  });

  it("an exchange from outside the company's ip_allowlist: 403, login.failed ip_not_allowed, the code left usable", async () => {
    const policy = (ipAllowlist: string[]) => ({
      mfa_required: false,
      session_days: 14,
      idle_timeout_minutes: null,
      ip_allowlist: ipAllowlist,
    });
    const admin = (await login(t, owner, acme.id)).jwt;
    await authed(t, admin)
      .put('/v1/company/policy', policy(['127.0.0.1/32']))
      .expect(200);
    try {
      const failedBefore = (await auditRows(t, acme.id, 'login.failed')).length;
      const signedIn = await signIn('member');
      const refused = await exchangeFrom(base, '127.0.0.2', signedIn.browser, signedIn.code!);
      expect(refused).toEqual({ status: 403, error: ['error_ip_not_allowed'] });
      // The same rule and the same record as a password or passkey login refused for its address.
      const failed = await auditRows(t, acme.id, 'login.failed');
      expect(failed.slice(failedBefore).map((row) => [row.subject_id, row.details])).toEqual([
        [String(member.id), { reason: 'ip_not_allowed', company_id: acme.id }],
      ]);
      // Nothing was spent: from an address the company accepts, the same browser finishes with the same code.
      await exchanged(signedIn);
    } finally {
      await authed(t, admin).put('/v1/company/policy', policy([])).expect(200);
    }
  });

  it('ends the sessions of a provider session when the provider logs it out (back-channel)', async () => {
    const signedIn = await signIn('member');
    const { browser } = signedIn;
    const res = { body: await exchanged(signedIn) };
    await authed(t, res.body.jwt).get('/v1/users/sessions').expect(200);
    // Log out at the provider, as the person would: its end-session page and confirmation form.
    await browser.run(`${idp.issuer}/session/end`, null, (url) => url.pathname.endsWith('/session/end/success'));
    const deadline = Date.now() + 1000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await authed(t, res.body.jwt).get('/v1/users/sessions')).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).not.toBe(200);
    console.log(`back-channel logout seen ${1000 - (deadline - Date.now())} ms after the provider's logout`);
    const revoked = await auditRows(t, acme.id, 'session.revoked');
    expect(revoked.at(-1)).toMatchObject({ details: { reason: 'backchannel_logout' } });
  });

  it('refuses an invalid logout token with 400', async () => {
    const res = await fetch(`${base}/v1/sso/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'logout_token=not.a.jwt',
    });
    expect(res.status).toBe(400);
  });

  it('404 without a connection; return_to elsewhere refused', async () => {
    expect((await start({ company_id: beta.id })).status).toBe(404);
    expect((await start({ company_id: acme.id, return_to: 'https://evil.example/x' })).status).toBe(400);
    expect((await start({ company_id: acme.id, return_to: '//evil.example/x' })).status).toBe(400);
  });
});

/** `POST /v1/sso/exchange` with the browser's cookies, from another loopback address than the browser's own. */
async function exchangeFrom(
  base: string,
  localAddress: string,
  browser: Browser,
  code: string,
): Promise<{ status: number; error: unknown }> {
  const url = new URL('/v1/sso/exchange', base);
  const cookie = [...browser.cookies(url.host)].map(([name, value]) => `${name}=${value}`).join('; ');
  const body = JSON.stringify({ sso_code: code });
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      url,
      { method: 'POST', localAddress, headers: { cookie, 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, error: JSON.parse(text).error }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
