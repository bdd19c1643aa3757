import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { browserAvailable } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';
import { DnsServer } from './support/dns-server';
import { RealIdp } from './support/oidc-idp';
import type { RunningService } from './support/processes';

jest.setTimeout(90_000);

const PASSWORD = 'a-long-enough-password';
const DOCS = resolve(__dirname, '..', 'docs');
const run = browserAvailable() ? describe : describe.skip;

/**
 * The single sign-on screen and the SSO login of the administration page, in Chromium, against oidc-provider (as
 * it ships: the e-mail at its UserInfo endpoint), the company proving its domain on a real DNS server (dnsmasq).
 */
run('the administration page’s single sign-on, in Chromium', () => {
  const rig = new AdminPageRig();
  let service: RunningService;
  let page: Page;
  let idp: RealIdp;
  let dns: DnsServer;
  let acme = 0;
  const owner = 'owner@sso-admin.example';
  const member = 'member@sso-admin.example';

  async function api(method: string, path: string, body?: unknown, credential?: string) {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(credential ? { authorization: credential } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  async function logIn(email: string): Promise<void> {
    await page.goto(`${service.url}/admin`);
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  beforeAll(async () => {
    await rig.provision();
    acme = Number((await rig.cli('company:create', '--name', 'Acme Staffing')).id);
    await rig.cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Olivia Owner');
    await rig.cli('membership:add', '--email', owner, '--company', String(acme), '--permissions', '*');
    await rig.cli('employee:create', '--email', member, '--password', PASSWORD, '--name', 'Mia Member');
    await rig.cli('membership:add', '--email', member, '--company', String(acme), '--permissions', 'products:read');
    dns = await DnsServer.start();
    await rig.start({ SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers });
    ({ service, page } = rig);
    idp = new RealIdp(await RealIdp.freePort(), {
      id: 'staff-admin',
      secret: 'the-admin-test-client-secret',
      redirectUris: [`${service.url}/v1/sso/callback`],
      backchannelLogoutUri: `${service.url}/v1/sso/backchannel-logout`,
    });
    idp.accounts.set('mia', { email: member, emailVerified: true, name: 'Mia Member' });
    await idp.start();
  }, 240_000);
  afterAll(async () => {
    await idp?.stop();
    await rig.stop();
    await dns?.stop();
  });

  it('connects the provider on the SSO screen, tests it, and a member signs in through it', async () => {
    await logIn(owner);
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Single sign-on' }).click();
    await page.getByLabel('Issuer').fill(idp.issuer);
    await page.getByLabel('Client ID').fill('staff-admin');
    await page.getByLabel('Client secret').fill('the-admin-test-client-secret');
    await page.getByLabel('E-mail domains').fill('sso-admin.example');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The provider’s discovery document was read.').waitFor();
    await page.getByRole('button', { name: 'Test the connection' }).click();
    await page.getByText('The provider answers: a sign-in can start.').waitFor();
    await page.screenshot({ path: join(DOCS, 'admin-sso.png'), fullPage: true });

    // The domain is pending: its TXT record to publish, and nothing signs in through it yet.
    const domains = page.getByRole('list', { name: 'E-mail domains' });
    await domains.getByText('Pending', { exact: true }).waitFor();
    const txtName = await page.getByLabel('TXT name, sso-admin.example').inputValue();
    const txtValue = await page.getByLabel('TXT value, sso-admin.example').inputValue();
    expect(txtName).toBe('_staff-auth-challenge.sso-admin.example');
    expect(txtValue).toMatch(/^staff-auth-domain-verification=/);
    await page.getByRole('heading', { name: 'E-mail domains' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(DOCS, 'admin-sso-domains-pending.png'), fullPage: true });
    // Verify before the record is published: the reason shows.
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await domains.getByText('Not verified', { exact: true }).waitFor();
    await domains.getByText(/No TXT record at _staff-auth-challenge\.sso-admin\.example/).waitFor();
    // Published: verified.
    await dns.publish(txtName, txtValue);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await domains.getByText('Verified', { exact: true }).waitFor();
    expect(await page.getByLabel('TXT value, sso-admin.example').count()).toBe(0);
    await page.screenshot({ path: join(DOCS, 'admin-sso-domains-verified.png'), fullPage: true });

    await page.getByRole('button', { name: 'Log out' }).first().click();
    await page.getByText('You are logged out.').waitFor();
    await page.getByLabel('E-mail').fill(member);
    await page.screenshot({ path: join(DOCS, 'admin-sso-login.png') });
    await page.getByRole('button', { name: 'Sign in with your company’s SSO' }).click();
    // The provider's own pages: its login form, then its consent form.
    await page.locator('input[name="login"]').fill('mia');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    expect(page.url()).not.toContain('sso_code');
    expect(await page.getByText('Mia Member').first().isVisible()).toBe(true);
  });

  it('says why an enforced company refuses the password', async () => {
    const ownerLogin = await api('POST', '/v1/users/authenticatefinish', {
      email: owner,
      password: PASSWORD,
      company_id: acme,
    });
    const put = await api(
      'PUT',
      '/v1/sso/connection',
      {
        issuer: idp.issuer,
        client_id: 'staff-admin',
        client_secret: 'the-admin-test-client-secret',
        email_domains: ['sso-admin.example'],
        enforced: true,
        jit: { enabled: false, permissions: [] },
      },
      ownerLogin.body.jwt,
    );
    expect(put.status).toBe(200);
    await logIn(member);
    await page.getByText('signs its staff in through its identity provider').waitFor();
    await page.screenshot({ path: join(DOCS, 'admin-sso-enforced.png') });
  });
});
