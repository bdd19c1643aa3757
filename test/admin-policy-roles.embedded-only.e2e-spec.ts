import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { type Browser, browserAvailable, withStepUpRefusedOnce } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';
import type { RunningService } from './support/processes';

jest.setTimeout(90_000);

const STORAGE_KEY = 'MAIN::LoginAccount';
const PASSWORD = 'a-long-enough-password';
const DOCS = resolve(__dirname, '..', 'docs');
const WIDTHS = [
  [1280, 800],
  [375, 740],
] as const;

const run = browserAvailable() ? describe : describe.skip;

/**
 * The Policy and Roles screens of /admin and the restricted session's notice (docs/contract.md "Company policies
 * and roles"), in Chromium against the built service.
 */
run('the administration page: Policy, Roles and the restricted session, in Chromium', () => {
  const rig = new AdminPageRig();
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let acme = 0;
  const owner = 'owner@policy.example';
  const manager = 'manager@policy.example';
  const clerk = 'clerk@policy.example';

  async function api(method: string, path: string, body?: unknown, credential?: string) {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(credential ? { authorization: credential } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  const login = (email: string) =>
    api('POST', '/v1/users/authenticatefinish', { email, password: PASSWORD, company_id: acme });

  async function logIn(email: string, secondFactor?: string): Promise<void> {
    await page.goto(`${service.url}/admin`);
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    if (secondFactor) {
      await page.getByLabel('Authentication code').fill(secondFactor);
      await page.getByRole('button', { name: 'Log in' }).click();
    }
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Account' }).waitFor();
  }
  const tabs = () => page.getByRole('navigation', { name: 'Sections' });
  const openTab = (name: string) => tabs().getByRole('link', { name, exact: true }).click();
  const storedJwt = async () =>
    JSON.parse((await page.evaluate(`localStorage.getItem(${JSON.stringify(STORAGE_KEY)})`)) as string).state.account
      .jwt as string;
  const noSideways = async () =>
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(page.viewportSize()!.width);

  beforeAll(async () => {
    await rig.provision();
    acme = Number((await rig.cli('company:create', '--name', 'Acme Policy')).id);
    const people: Array<[string, string, string]> = [
      [owner, 'Olivia Owner', '*'],
      [manager, 'Mona Manager', 'users:read,users:write,products:read,orders:read'],
      [clerk, 'Carl Clerk', 'products:read'],
    ];
    for (const [email, name, permissions] of people) {
      await rig.cli('employee:create', '--email', email, '--password', PASSWORD, '--name', name);
      await rig.cli('membership:add', '--email', email, '--company', String(acme), '--permissions', permissions);
    }
    await rig.start();
    ({ service, browser, page } = rig);
  }, 240_000);
  afterAll(() => rig.stop());

  it('offers Roles to users:write and Policy to * only', async () => {
    await logIn(clerk);
    await tabs().getByRole('link', { name: 'Sessions' }).waitFor();
    expect(await tabs().getByRole('link', { name: 'Roles' }).count()).toBe(0);
    expect(await tabs().getByRole('link', { name: 'Policy' }).count()).toBe(0);
    await logIn(owner);
    await tabs().getByRole('link', { name: 'Policy' }).waitFor();
    // All ten sections: one row at 1280 px, two at 375 px, none cut off or scrolled out of view.
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      const tops = await tabs()
        .getByRole('link')
        .evaluateAll((links) => new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size);
      expect(tops).toBe(width === 375 ? 2 : 1);
      const strip = tabs().locator('.tabs-inner');
      const overflow = await strip.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect({ width, overflow }).toEqual({ width, overflow: 0 });
    }
    await page.setViewportSize({ width: 1100, height: 800 });
    await logIn(manager);
    await tabs().getByRole('link', { name: 'Roles' }).waitFor();
    expect(await tabs().getByRole('link', { name: 'Policy' }).count()).toBe(0);
  });

  it('creates a role with only permissions the user holds; a taken name answers the 409 beside the form', async () => {
    await openTab('Roles');
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'New role' }) });
    const offered = await form.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('value')));
    expect(offered.sort()).toEqual(['orders:read', 'products:read', 'users:read', 'users:write']);
    await form.getByLabel('Role name').fill('Support');
    await form.getByRole('checkbox', { name: /^products:read/ }).check();
    await form.getByRole('button', { name: 'Create role' }).click();
    await page.getByText('Role “Support” is created.').waitFor();
    const row = page.getByRole('list', { name: 'Roles' }).getByRole('listitem').filter({ hasText: 'Support' });
    expect(await row.innerText()).toContain('Nobody holds it');
    await form.getByLabel('Role name').fill('support');
    await form.getByRole('button', { name: 'Create role' }).click();
    await form.getByText('Another role of this company has that name.').waitFor();
  });

  it('changes a role (after the step-up prompt), assigns it on the Employees screen, and shows the 409 on delete', async () => {
    const row = page.getByRole('list', { name: 'Roles' }).getByRole('listitem').filter({ hasText: 'Support' });
    await row.getByRole('button', { name: 'Edit role Support' }).click();
    await row.getByRole('checkbox', { name: /^orders:read/ }).check();
    // The first answer is the service's step-up refusal; the proof and the retry that follow are real.
    await withStepUpRefusedOnce(page, '**/v1/roles/*', 'PUT', async () => {
      await row.getByRole('button', { name: 'Save role' }).click();
      const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
      await dialog.getByLabel('Password').fill(PASSWORD);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('Role “Support” is saved', { exact: false }).waitFor();
    });
    // The list reloads after the notice.
    await row.getByRole('listitem').filter({ hasText: 'orders:read' }).waitFor();
    expect((await row.getByRole('listitem').allInnerTexts()).sort()).toEqual(['orders:read', 'products:read']);

    await openTab('Employees');
    const clerkRow = page.getByRole('list', { name: 'Employees' }).getByRole('listitem').filter({ hasText: clerk });
    await clerkRow.getByRole('button', { name: 'Change permissions of Carl Clerk' }).click();
    await clerkRow.getByRole('group', { name: 'Roles of Carl Clerk' }).getByLabel('Support').check();
    await clerkRow.getByRole('button', { name: 'Save permissions' }).click();
    await clerkRow.locator('.badge', { hasText: 'Support' }).waitFor();
    const clerkJwt = (await login(clerk)).body.jwt as string;
    const me = await api('GET', '/v1/users/me', undefined, clerkJwt);
    expect(me.body.roles.map((r: { name: string }) => r.name)).toEqual(['Support']);
    expect([...me.body.permissions].sort()).toEqual(['orders:read', 'products:read']);

    await openTab('Roles');
    const list = page.getByRole('list', { name: 'Roles' });
    const support = list.getByRole('listitem').filter({ hasText: 'Support' });
    expect(await support.innerText()).toContain('1 member');
    await support.getByRole('button', { name: 'Delete role Support' }).click();
    await support.getByRole('button', { name: 'Confirm' }).click();
    await support.getByText('1 member(s) hold this role; take it from them first.').waitFor();
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      await noSideways();
      await page.screenshot({ path: `${DOCS}/admin-roles${width === 375 ? '-375' : ''}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1100, height: 800 });
    expect((await api('GET', '/v1/roles', undefined, await storedJwt())).body.total).toBe(1);
  });

  it('edits the policy: the 400s’ messages under their fields, the step-up prompt, then saved', async () => {
    await logIn(owner);
    await openTab('Policy');
    const days = page.getByLabel('Days a login lasts');
    const idle = page.getByLabel('Idle time-out (minutes)');
    const networks = page.getByLabel('Allowed networks');
    expect(await days.inputValue()).toBe('14');
    expect(await idle.inputValue()).toBe('');
    expect(await networks.inputValue()).toBe('');
    await days.fill('20');
    await idle.fill('5');
    await networks.fill('10.0.0.0/8\nnot-a-network');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Nothing was saved: correct the fields marked below.').waitFor();
    expect(await page.locator('#session_days-problems').innerText()).toBe('session_days must not be greater than 14');
    expect(await page.locator('#idle_timeout_minutes-problems').innerText()).toBe(
      'idle_timeout_minutes must not be less than 15',
    );
    expect(await days.getAttribute('aria-invalid')).toBe('true');

    await days.fill('7');
    await idle.fill('30');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page
      .locator('#ip_allowlist-problems')
      .getByText('Line 2 (not-a-network): must be an IPv4 or IPv6 CIDR')
      .waitFor();
    expect(await page.locator('#session_days-problems').count()).toBe(0);
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      await noSideways();
      await page.screenshot({ path: `${DOCS}/admin-policy${width === 375 ? '-375' : ''}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1100, height: 800 });

    await networks.fill('10.0.0.0/8');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page
      .locator('#ip_allowlist-problems')
      .getByText(/must hold your own address \(.*127\.0\.0\.1\)/)
      .waitFor();

    await networks.fill('10.0.0.0/8\n127.0.0.1/32');
    await withStepUpRefusedOnce(page, '**/v1/company/policy', 'PUT', async () => {
      await page.getByRole('button', { name: 'Save policy' }).click();
      const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
      await dialog.getByLabel('Password').fill(PASSWORD);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('The policy is saved.', { exact: false }).waitFor();
    });
    expect(await networks.inputValue()).toBe('10.0.0.0/8\n127.0.0.1/32');
    const saved = await api('GET', '/v1/company/policy', undefined, await storedJwt());
    expect(saved.body).toEqual({
      mfa_required: false,
      session_days: 7,
      idle_timeout_minutes: 30,
      ip_allowlist: ['10.0.0.0/8', '127.0.0.1/32'],
    });

    await networks.fill('');
    await page.getByLabel(/Require a second factor/).check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('The policy is saved.', { exact: false }).waitFor();
    // From now on a login without a second factor is restricted; the clerk's shows it.
    expect((await login(clerk)).body.restricted).toBe('mfa_enrollment');
    // So is this open one, which proved none: the service's first refusal turns the page to the notice.
    await openTab('Employees');
    await page.getByText('Your company requires a second factor.').waitFor();
    expect((await tabs().getByRole('link').allInnerTexts()).map((t) => t.trim())).toEqual(['Account']);
  });

  it('explains a restricted session and leads to the set-up; after it, a login with the factor is whole', async () => {
    await logIn(clerk);
    const notice = page.getByRole('alert').filter({ hasText: 'Your company requires a second factor.' });
    await notice.waitFor();
    expect((await tabs().getByRole('link').allInnerTexts()).map((t) => t.trim())).toEqual(['Account']);
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Password', exact: true }).count()).toBe(0);
    // Such a session has no second factor: only setting one up is offered, not turning TOTP off.
    await page.getByRole('button', { name: 'Set up two-step verification' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Turn off two-step verification' }).count()).toBe(0);
    // What the notice says is what the service does with this login.
    const refused = await api('GET', '/v1/users/sessions', undefined, await storedJwt());
    expect(refused.body.error).toEqual(['error_mfa_enrollment_required']);
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      await noSideways();
      await page.screenshot({ path: `${DOCS}/admin-restricted${width === 375 ? '-375' : ''}.png` });
    }
    await page.setViewportSize({ width: 1100, height: 800 });

    await notice.getByRole('link', { name: 'set up two-step verification' }).click();
    const setUp = page.locator('form', { has: page.getByRole('button', { name: 'Set up two-step verification' }) });
    await setUp.getByLabel('Current password').fill(PASSWORD);
    await setUp.getByRole('button', { name: 'Set up two-step verification' }).click();
    const secret = await page.getByLabel('Key', { exact: true }).inputValue();
    const recovery = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allInnerTexts();
    await page.getByLabel('Code from the app').fill(totpCodeAt(secret, Date.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Two-step verification is on.', { exact: false }).waitFor();
    await notice.getByRole('button', { name: 'log in again' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();

    await logIn(clerk, recovery[0].trim());
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    expect(await page.getByText('Your company requires a second factor.').count()).toBe(0);
    expect((await api('GET', '/v1/users/sessions', undefined, await storedJwt())).status).toBe(200);
  });

  it('raised no uncaught page error and logged no console error but the 409 it provoked', () => {
    const conflict =
      /^console: Failed to load resource: the server responded with a status of 409 .*\/v1\/roles(\/\d+)?\)$/;
    expect(browser.problems.filter((problem) => !conflict.test(problem))).toEqual([]);
  });
});
