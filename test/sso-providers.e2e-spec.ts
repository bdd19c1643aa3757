import type { AddressInfo } from 'node:net';
import { auditRows } from './support/audit-rows';
import { DnsServer } from './support/dns-server';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { RealIdp } from './support/oidc-idp';
import { connectionBody, proveDomains } from './support/sso-domains';
import { SsoFlows } from './support/sso-flow';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 34, "SSO fails against standard providers": OpenID Connect Core 5.4 lets a provider serve `email` from
 * its UserInfo endpoint only (oidc-provider's default, Okta's authorization-code ID tokens), and Microsoft Entra
 * ID sends work accounts' e-mails without `email_verified`. Here oidc-provider runs with its defaults, and the
 * jose provider serves a UserInfo answer about another `sub`.
 */
describe('single sign-on with standard providers', () => {
  let t: TestApp;
  let dns: DnsServer;
  let idp: RealIdp;
  let jose: JoseIdp;
  let flows: SsoFlows;
  let company: { id: number };
  let joseCo: { id: number };
  let ownerJwt: string;
  const email = (name: string, domain = 'std.example') => `${name}-${process.pid}@${domain}`;

  beforeAll(async () => {
    dns = await DnsServer.start();
    t = await startTestApp({ env: { SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers } });
    await t.app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    flows = new SsoFlows(base);
    // oidc-provider as it ships: the e-mail claims at its UserInfo endpoint, none in the ID token.
    idp = new RealIdp(await RealIdp.freePort(), {
      id: 'staff-auth',
      secret: 'a-client-secret-of-the-test',
      redirectUris: [`${base}/v1/sso/callback`],
      backchannelLogoutUri: `${base}/v1/sso/backchannel-logout`,
    });
    await idp.start();
    jose = new JoseIdp('jose-client');
    await jose.start();
    [company, joseCo] = await createCompanies(t, 'Standard Co', 'Jose Co');
    const owner = await createAccount(t, [company.id, joseCo.id], ['*']);
    ownerJwt = (await login(t, owner, company.id)).jwt;
    const saved = await authed(t, ownerJwt)
      .put('/v1/sso/connection', connectionBody(idp.issuer, ['std.example', 'pending.example']))
      .expect(200);
    // std.example is proven; pending.example stays listed but unproven.
    const [pending, std] = saved.body.email_domains;
    expect([pending.domain, std.domain]).toEqual(['pending.example', 'std.example']);
    await dns.publish(std.dns_txt.name, std.dns_txt.value);
    const verified = await authed(t, ownerJwt).post('/v1/sso/connection/domains/verify').expect(200);
    expect(verified.body.email_domains.map((d: { verified: boolean }) => d.verified)).toEqual([false, true]);
    for (const [login_, verifiedClaim] of [
      ['alice', true],
      ['entra', null],
      ['unchecked', false],
    ] as const) {
      const account = await createAccount(t, [company.id], ['products:read'], email(login_));
      idp.accounts.set(login_, { email: account.email, emailVerified: verifiedClaim });
    }
    for (const login_ of ['pending-entra', 'pending-checked']) {
      const account = await createAccount(t, [company.id], ['products:read'], email(login_, 'pending.example'));
      idp.accounts.set(login_, { email: account.email, emailVerified: login_ === 'pending-checked' ? true : null });
    }
    const joseOwnerJwt = (await login(t, owner, joseCo.id)).jwt;
    const joseSaved = await authed(t, joseOwnerJwt)
      .put('/v1/sso/connection', connectionBody(jose.issuer, ['jose.example'], { client_id: 'jose-client' }))
      .expect(200);
    await proveDomains(dns, joseSaved.body, () => authed(t, joseOwnerJwt).post('/v1/sso/connection/domains/verify'));
    jose.email = (await createAccount(t, [joseCo.id], ['products:read'], email('jo', 'jose.example'))).email;
  });
  afterAll(async () => {
    await idp?.stop();
    await jose?.stop();
    await t?.close();
    await dns?.stop();
  });

  it('signs in when the e-mail comes from the UserInfo endpoint only (oidc-provider as it ships)', async () => {
    idp.hits.length = 0;
    const { code, error, browser } = await flows.signIn('alice', { company_id: company.id });
    expect({ error, code: Boolean(code) }).toEqual({ error: null, code: true });
    const res = await flows.exchange(browser, code!);
    expect({ status: res.status, email: res.body.employee?.email }).toEqual({ status: 200, email: email('alice') });
    // One more round trip than a provider that puts the e-mail in the ID token: the UserInfo request.
    expect(idp.hits).toContain('/me');
  });

  it('signs in an Entra-shaped e-mail (no email_verified claim) of a verified domain', async () => {
    const { code, error } = await flows.signIn('entra', { company_id: company.id });
    expect({ error, code: Boolean(code) }).toEqual({ error: null, code: true });
  });

  it('refuses email_verified: false, and any e-mail of a domain not proven, whatever the provider says', async () => {
    for (const login_ of ['unchecked', 'pending-entra', 'pending-checked']) {
      const { code, error } = await flows.signIn(login_, { company_id: company.id });
      expect({ login_, code, error }).toEqual({ login_, code: null, error: 'error_invalid_credentials' });
    }
    const reasons = (await auditRows(t, company.id, 'login.failed')).map(
      (row) => (row.details as { reason?: string }).reason,
    );
    expect(reasons).toEqual(expect.arrayContaining(['email_not_verified', 'email_domain_not_verified']));
  });

  it('refuses a UserInfo answer about another sub than the ID token (Core 5.3.2), accepts its own', async () => {
    jose.claimsIn = 'userinfo';
    try {
      jose.userinfoSub = 'someone-else';
      const swapped = await flows.signIn(null, { company_id: joseCo.id });
      expect({ code: swapped.code, error: swapped.error }).toEqual({ code: null, error: 'error_invalid_credentials' });
      jose.userinfoSub = jose.sub;
      // No e-mail anywhere: nothing to sign in with.
      const email = jose.email;
      jose.email = null;
      const none = await flows.signIn(null, { company_id: joseCo.id });
      jose.email = email;
      expect({ code: none.code, error: none.error }).toEqual({ code: null, error: 'error_invalid_credentials' });
      const reasons = (await auditRows(t, joseCo.id, 'login.failed')).map(
        (row) => (row.details as { reason?: string }).reason,
      );
      expect(reasons).toContain('email_missing');
      const own = await flows.signIn(null, { company_id: joseCo.id });
      expect({ error: own.error, code: Boolean(own.code) }).toEqual({ error: null, code: true });
    } finally {
      jose.claimsIn = 'id_token';
      jose.userinfoSub = jose.sub;
    }
  });
});
