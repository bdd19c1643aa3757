import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { type Browser, browserAvailable, SCREENSHOT_DIR } from './support/browser';
import type { LoginBody } from './support/fixtures';
import { AdminPageRig } from './support/admin-page-rig';
import type { RunningService } from './support/processes';

// A real browser against the built service: each step waits on the page, so give them room on a busy machine.
jest.setTimeout(90_000);

const STORAGE_KEY = 'MAIN::LoginAccount';
const DOCS = resolve(__dirname, '..', 'docs');
const PASSWORD = 'a-long-enough-password';

// The page stores the login result as the API returned it (docs/contract.md: `state.account` is the login result).
type StoredAccount = LoginBody;

const run = browserAvailable() ? describe : describe.skip;

run('the administration page at /admin, in Chromium', () => {
  const rig = new AdminPageRig();
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  const companies: Record<'acme' | 'borealis', number> = { acme: 0, borealis: 0 };
  const owner = 'owner@acme.example';
  const clerk = 'clerk@acme.example';

  const cli = (...args: string[]) => rig.cli(...args);

  async function api(method: string, path: string, credential?: string, body?: unknown) {
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
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
    };
  }

  async function stored(): Promise<{ state: { account: StoredAccount }; version: number } | null> {
    const raw = (await page.evaluate(`localStorage.getItem(${JSON.stringify(STORAGE_KEY)})`)) as string | null;
    return raw === null ? null : JSON.parse(raw);
  }

  async function storedJwt(): Promise<string> {
    const value = await stored();
    if (!value) throw new Error('nothing stored');
    return value.state.account.jwt;
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  }

  async function freshLoginScreen(): Promise<void> {
    await page.goto(`${service.url}/admin`);
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
  }

  async function logIn(email: string, company?: string): Promise<void> {
    await freshLoginScreen();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    if (company) {
      await page.getByRole('heading', { name: 'Choose a company' }).waitFor();
      await page.getByLabel(company).check();
      await page.getByRole('button', { name: 'Log in' }).click();
    }
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
  }

  async function openTab(name: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
  }

  async function expectBlacklisted(credential: string): Promise<void> {
    const res = await api('GET', '/v1/users/me', credential);
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 400,
      body: { error: ['error_jwt_blacklisted'] },
    });
  }

  beforeAll(async () => {
    await rig.provision();
    // The embedded database admits one process at a time: the CLI sets the scene before the service starts.
    companies.acme = Number((await cli('company:create', '--name', 'Acme Trading')).id);
    companies.borealis = Number((await cli('company:create', '--name', 'Borealis Foods')).id);
    await cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Olivia Owner');
    await cli('membership:add', '--email', owner, '--company', String(companies.acme), '--permissions', '*');
    await cli('membership:add', '--email', owner, '--company', String(companies.borealis), '--permissions', '*');
    await cli('employee:create', '--email', clerk, '--password', PASSWORD, '--name', 'Carl Clerk');
    await cli(
      'membership:add',
      '--email',
      clerk,
      '--company',
      String(companies.acme),
      '--permissions',
      'products:read',
    );
    await rig.start();
    ({ service, browser, page } = rig);
    // Seven CLI runs, a service start and a browser launch: minutes on a machine busy with other suites.
  }, 240_000);

  afterAll(() => rig.stop());

  it('is served with the security headers, no inline script and no rate limit', async () => {
    const res = await fetch(`${service.url}/admin`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-rate-limit-limit')).toBeNull();
    // Every script is a file of its own.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/admin\/assets\/[\w.-]+\.js"/);
      expect(body.trim()).toBe('');
    }
    const asset = /src="(\/admin\/assets\/[\w.-]+\.js)"/.exec(html)![1];
    const script = await fetch(`${service.url}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('x-frame-options')).toBe('DENY');
    expect(script.headers.get('x-rate-limit-limit')).toBeNull();
    // Far more than the GET limit of any window, scaled or not: the page is never limited.
    const statuses = await Promise.all(
      Array.from({ length: 120 }, () => fetch(`${service.url}/admin`).then((r) => r.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));

    const missing = await api('GET', '/admin/assets/nope.js');
    expect(missing).toMatchObject({ status: 404, body: { error: ['error_not_found'] } });
  });

  it('says so when the password is wrong, and stores nothing', async () => {
    await freshLoginScreen();
    await shot('01-login');
    await page.getByLabel('E-mail').fill(owner);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Wrong e-mail or password.');
    await shot('02-login-wrong-password');
    expect(await stored()).toBeNull();
  });

  it('shows the failed-login lock with its wait', async () => {
    const locked = 'locked@acme.example';
    for (let i = 0; i < 10; i++) {
      expect(
        (await api('POST', '/v1/users/authenticateinit', undefined, { email: locked, password: 'wrong-password' }))
          .status,
      ).toBe(401);
    }
    await freshLoginScreen();
    await page.getByLabel('E-mail').fill(locked);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Continue' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Too many failed logins for this e-mail\. .*try again in 1[45] minutes/);
  });

  it('shows the request-rate limit on the login form with its wait, and logs in once the bucket has room', async () => {
    const alert = page.getByRole('alert');
    const picker = page.getByRole('heading', { name: 'Choose a company' });
    const spend = () => api('POST', '/v1/users/authenticateinit', undefined, {});
    // The browser and this test share one bucket: 127.0.0.1, POST, users, no credential. It holds 15 times
    // RATE_LIMIT_SCALE and drains as many per 3 s (here one every 10 ms), so spenders fill it with invalid
    // bodies, which lock no e-mail, and keep it full. The page's request is held until the bucket is full, then
    // handed to the service; a slot freed in the instant before it arrives would admit it, so it is handed again
    // until the service refuses it, and the page gets that refusal, the service's own answer to its own request,
    // once. What is tested is the page's handling of the service's 429, on one attempt, with no retry of the page.
    await freshLoginScreen();
    await page.getByLabel('E-mail').fill(owner);
    await page.getByLabel('Password').fill(PASSWORD);
    let spending = true;
    let refused = 0;
    const spenders = Array.from({ length: 24 }, async () => {
      while (spending) if ((await spend()).status === 429) refused++;
    });
    let handed = 0;
    let retryAfter: string | undefined;
    let routeError: unknown;
    await page.route('**/v1/users/authenticateinit', async (route) => {
      try {
        const filling = Date.now();
        while (refused === 0) {
          if (Date.now() - filling > 10_000) throw new Error('the spenders did not fill the bucket within 10 s');
          await new Promise((done) => setTimeout(done, 20));
        }
        for (;;) {
          if (Date.now() - filling > 20_000) throw new Error(`the service admitted the page's request ${handed} times`);
          handed++;
          const response = await route.fetch();
          if (response.status() === 429) {
            retryAfter = response.headers()['retry-after'];
            return await route.fulfill({ response });
          }
        }
      } catch (error) {
        routeError = error;
        await route.abort();
      }
    });
    let shown: string | null;
    try {
      await page.getByRole('button', { name: 'Continue' }).click();
      // An aborted request (the scene could not be set) is shown as an alert too; its reason is thrown.
      await alert.waitFor();
      if (routeError !== undefined) throw routeError;
      shown = await alert.textContent();
    } finally {
      spending = false;
      await Promise.all(spenders);
      await page.unroute('**/v1/users/authenticateinit');
    }
    console.log(`login rate limit: the page's request was handed to the service ${handed} time(s)`);
    expect(retryAfter).toBe('1');
    // The next request fits in one slot's drain time: Retry-After 1.
    expect(shown).toBe('Too many requests from this address. Try again in 1 second.');
    expect(await stored()).toBeNull();

    // The same form goes through once the bucket has room again.
    const waited = Date.now();
    while ((await spend()).status === 429) {
      if (Date.now() - waited > 10_000) throw new Error('the rate-limit bucket did not drain within 10 s');
      await new Promise((done) => setTimeout(done, 200));
    }
    await page.getByRole('button', { name: 'Continue' }).click();
    await picker.waitFor();
  });

  it('skips the picker for a single company and offers only what the permissions allow', async () => {
    await logIn(clerk);
    expect(await page.getByTestId('current-company').textContent()).toBe('Acme Trading');
    const tabs = page.getByRole('navigation', { name: 'Sections' }).getByRole('link');
    await page.getByText('products:read', { exact: true }).waitFor();
    expect(await tabs.allTextContents()).toEqual(['Home', 'Account', 'Sessions']);
    // One company: nothing to switch to.
    await page.getByText('Your account belongs to this company only.').waitFor();
    expect(await page.getByLabel('Switch to').count()).toBe(0);
  });

  it('logs in in two steps with the picker, by keyboard, and stores the login in the contract shape', async () => {
    await freshLoginScreen();
    // Keyboard only: the e-mail field has focus, Tab moves on, Enter submits, arrows choose the company.
    await page.keyboard.type(owner);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Choose a company' }).waitFor();
    expect(await page.getByRole('radio').count()).toBe(2);
    await shot('03-company-picker');
    await page.screenshot({ path: join(DOCS, 'admin-company-picker.png') });
    await page.getByLabel('Acme Trading').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Borealis Foods').isChecked()).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    expect(await page.getByTestId('current-company').textContent()).toBe('Borealis Foods');
    await page.getByText('* (everything)').first().waitFor();
    await shot('04-home');
    // Every section a holder of `*` may use.
    expect(await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).toEqual([
      'Home',
      'Account',
      'Sessions',
      'API keys',
      'Employees',
      'Roles',
      'Activity',
      'Limits',
      'Single sign-on',
      'Policy',
    ]);
    await page.screenshot({ path: join(DOCS, 'admin-home.png'), fullPage: true });

    const value = await stored();
    expect(value).toEqual({
      state: {
        account: {
          jwt: expect.any(String),
          refresh_token: expect.any(String),
          expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT23:59:59\+07:00$/),
          session_id: expect.any(String),
          company: { id: companies.borealis, name: 'Borealis Foods' },
          employee: { id: expect.any(Number), email: owner, name: 'Olivia Owner' },
        },
      },
      version: 0,
    });
    expect(page.url()).not.toContain(value!.state.account.jwt);
  });

  let copied = '';

  it('copies a token that works against the API', async () => {
    await page.getByRole('button', { name: 'Copy token' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    copied = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(copied).toBe(await storedJwt());
    const me = await api('GET', '/v1/users/me', copied);
    expect(me).toMatchObject({ status: 200, body: { company: { id: companies.borealis }, credential: 'jwt' } });
  });

  it('keeps the login over a reload', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    expect(await page.getByTestId('current-company').textContent()).toBe('Borealis Foods');
    expect(await storedJwt()).toBe(copied);
  });

  it('switching company in the page blacklists the copied token', async () => {
    await page.getByLabel('Switch to').selectOption({ label: 'Acme Trading' });
    await page.getByRole('button', { name: 'Switch company' }).click();
    await page.getByTestId('current-company').getByText('Acme Trading').waitFor();
    const now = await storedJwt();
    expect(now).not.toBe(copied);
    await expectBlacklisted(copied);
    expect(await api('GET', '/v1/users/me', now)).toMatchObject({
      status: 200,
      body: { company: { id: companies.acme } },
    });
    expect(await page.locator('#token').inputValue()).toBe(now);
  });

  it('shows the company-switch limit with its wait, and keeps the token', async () => {
    const before = await storedJwt();
    // Another session of the same employee uses up the 10 switches per 60 s (the page's own switch counted too).
    let token = String(
      (
        await api('POST', '/v1/users/authenticatefinish', undefined, {
          email: owner,
          password: PASSWORD,
          company_id: companies.acme,
        })
      ).body!.jwt,
    );
    let limited = false;
    for (let i = 0; i < 12 && !limited; i++) {
      const to = i % 2 === 0 ? companies.borealis : companies.acme;
      const res = await api('POST', '/v1/users/changeworkingcompany', token, { company_id: to });
      if (res.status === 429) limited = true;
      else token = String(res.body!.jwt);
    }
    expect(limited).toBe(true);
    expect((await api('POST', '/v1/users/logout', token)).status).toBe(204);

    await page.getByRole('button', { name: 'Switch company' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Too many company switches\. Try again in (\d+ seconds?|1 minute)\.$/);
    expect(await storedJwt()).toBe(before);
    expect((await api('GET', '/v1/users/me', before)).status).toBe(200);
  });

  it('lists the sessions with the current one marked, revokes one, and logs out everywhere else', async () => {
    const login = async () => {
      const res = await api('POST', '/v1/users/authenticatefinish', undefined, {
        email: owner,
        password: PASSWORD,
        company_id: companies.acme,
      });
      return res.body as unknown as StoredAccount;
    };
    const other = await login();
    const current = (await stored())!.state.account;
    await openTab('Sessions');
    const rows = page.getByRole('list', { name: 'Active sessions' }).getByRole('listitem');
    await page.locator(`[data-session-id="${other.session_id}"]`).waitFor();
    expect(await rows.count()).toBe(2);
    const mine = page.locator(`[data-session-id="${current.session_id}"]`);
    expect(await mine.getByText('This browser').count()).toBe(1);
    // Named by browser, system and address, so that a script's login does not pass for this browser.
    const title = (id: string) => page.locator(`[data-session-id="${id}"] .row-title`).innerText();
    expect(await title(current.session_id)).toMatch(/^Headless Chrome \d+ on Linux · 127\.0\.0\.1/);
    expect(await title(other.session_id)).toMatch(/^node · 127\.0\.0\.1/);
    // Times carry their zone, the same one as the token's expiry on Home.
    const zoneOf = (text: string) => /(\S+)$/.exec(text.trim())![1];
    const loggedIn = await mine.getByText(/^Logged in /).innerText();
    expect(zoneOf(loggedIn)).toMatch(/^(UTC|GMT([+-]\d{1,2}(:\d\d)?)?|[A-Z]{3,5})$/);
    await openTab('Home');
    const expiry = (await page.getByTestId('token-expiry').innerText()).replace(/ \(.*$/s, '');
    expect(zoneOf(expiry)).toBe(zoneOf(loggedIn));
    await openTab('Sessions');
    await page.locator(`[data-session-id="${other.session_id}"]`).waitFor();
    await shot('05-sessions');

    const otherRow = page.locator(`[data-session-id="${other.session_id}"]`);
    await otherRow.getByRole('button', { name: /^End session/ }).click();
    await otherRow.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'is ended' }).waitFor();
    await otherRow.waitFor({ state: 'detached' });
    await expectBlacklisted(other.jwt);

    const more = [await login(), await login()];
    await page.reload();
    await page.locator(`[data-session-id="${more[1].session_id}"]`).waitFor();
    await page.getByRole('button', { name: 'Log out everywhere else' }).click();
    await page.getByRole('button', { name: 'Yes, end 2' }).click();
    await page.getByText('Logged out everywhere else (2 sessions).').waitFor();
    for (const session of more) await expectBlacklisted(session.jwt);
    await page.locator(`[data-session-id="${more[1].session_id}"]`).waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(1);
    expect((await api('GET', '/v1/users/me', await storedJwt())).status).toBe(200);
  });

  it('creates an API key with a subset of permissions, shows it once, and revokes it', async () => {
    await openTab('API keys');
    await page.getByLabel('Name').fill('warehouse sync');
    await page.getByRole('checkbox', { name: /products:read/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByRole('textbox', { name: 'New API key' });
    await field.waitFor();
    const key = await field.inputValue();
    expect(key).toMatch(/^[^:\s]+:[^:\s]+$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(String(await page.evaluate('navigator.clipboard.readText()'))).toBe(key);
    await page.locator('[data-key-id]').first().waitFor();
    await shot('06-api-keys');

    expect((await api('GET', '/v1/products', key)).status).toBe(200);
    expect(await api('GET', '/v1/users', key)).toMatchObject({
      status: 403,
      body: { error: ['error_permission_denied'] },
    });

    // Shown once: after a reload only the list remains, without the secret.
    await page.reload();
    await page.getByRole('list', { name: 'API keys' }).getByText('warehouse sync').waitFor();
    expect(await page.getByRole('textbox', { name: 'New API key' }).count()).toBe(0);
    expect(await page.content()).not.toContain(key.split(':')[1]);

    await page.getByRole('button', { name: 'Revoke warehouse sync' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('The key "warehouse sync" is revoked.').waitFor();
    await expectBlacklisted(key);
  });

  it('lists employees, adds one and changes their permissions', async () => {
    await openTab('Employees');
    await page.getByRole('list', { name: 'Employees' }).getByText('Carl Clerk').waitFor();
    await page.getByLabel('Add with a first password').check();
    await page.getByLabel('E-mail', { exact: true }).fill('new.hire@acme.example');
    await page.getByLabel('Name', { exact: true }).fill('Nina Newhire');
    await page.getByLabel('Initial password').fill('another-long-password');
    const add = page.locator('section', { has: page.getByRole('heading', { name: 'Invite or add someone' }) });
    await add.getByRole('checkbox', { name: /orders:read/ }).check();
    await page.getByRole('button', { name: 'Add employee' }).click();
    await page.getByText('Nina Newhire is added.').waitFor();
    const row = page.locator('li', { hasText: 'new.hire@acme.example' });
    await row.getByText('orders:read').waitFor();

    await page.getByRole('button', { name: 'Change permissions of Nina Newhire' }).click();
    await row.getByRole('checkbox', { name: /products:read/ }).check();
    await row.getByRole('button', { name: 'Save permissions' }).click();
    await row.getByText('products:read').waitFor();
    await shot('07-employees');

    const list = await api('GET', '/v1/users', await storedJwt());
    const hire = (list.body!.data as Array<{ email: string; permissions: string[] }>).find(
      (e) => e.email === 'new.hire@acme.example',
    );
    expect(hire?.permissions).toEqual(['orders:read', 'products:read']);
  });

  it('returns to the login with the reason when the session is ended elsewhere', async () => {
    const jwt = await storedJwt();
    expect((await api('POST', '/v1/users/logout', jwt)).status).toBe(204);
    await openTab('Sessions');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Your session has ended/);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await stored()).toBeNull();
    await shot('08-login-session-ended');
  });

  it('drops a stored login the service no longer accepts, saying why', async () => {
    const plant = async (account: Partial<StoredAccount>) => {
      const value = JSON.stringify({ state: { account: { ...account } }, version: 0 });
      await page.evaluate(`localStorage.setItem(${JSON.stringify(STORAGE_KEY)}, ${JSON.stringify(value)})`);
      await page.reload();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      expect(await stored()).toBeNull();
      return alert.textContent();
    };
    const shape = {
      refresh_token: 'made-up',
      session_id: '00000000-0000-4000-8000-000000000000',
      company: { id: companies.acme, name: 'Acme Trading' },
      employee: { id: 1, email: owner, name: 'Olivia Owner' },
    };
    // A token the service never issued.
    const far = new Date(Date.now() + 7 * 86_400_000).toISOString();
    expect(await plant({ ...shape, jwt: 'not-a-token', expires_at: far })).toBe(
      'The service no longer recognises your login. Log in again.',
    );
    // Past its expiry: the page tries the refresh token first, which the service refuses.
    const past = new Date(Date.now() - 60_000).toISOString();
    expect(await plant({ ...shape, jwt: 'not-a-token', expires_at: past })).toBe(
      'Your login could not be renewed. Log in again.',
    );
  });

  it('logging out blacklists the token and clears the storage', async () => {
    await logIn(owner, 'Acme Trading');
    const jwt = await storedJwt();
    await page.getByRole('banner').getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByText('You are logged out.').waitFor();
    expect(await stored()).toBeNull();
    await expectBlacklisted(jwt);
  });

  it('fits a 375 px wide screen', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await logIn(owner, 'Acme Trading');
    const tabs = page.getByRole('navigation', { name: 'Sections' }).getByRole('link');
    for (const [tab, name] of [
      ['Home', '09-narrow-home'],
      ['Sessions', '10-narrow-sessions'],
      ['API keys', '11-narrow-api-keys'],
      ['Employees', '12-narrow-employees'],
      ['Activity', '12-narrow-activity'],
      ['Limits', '12-narrow-limits'],
      ['Single sign-on', '13-narrow-sso'],
    ]) {
      await openTab(tab);
      await page.waitForLoadState('networkidle');
      await shot(name);
      if (tab === 'Sessions') await page.screenshot({ path: join(DOCS, 'admin-sessions-375.png'), fullPage: true });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      // The strip wraps: every tab, the current one included, is on the screen without scrolling it.
      for (const box of await tabs.evaluateAll((links) => links.map((link) => link.getBoundingClientRect().toJSON()))) {
        expect(box.left).toBeGreaterThanOrEqual(0);
        expect(box.right).toBeLessThanOrEqual(375);
      }
      expect(await tabs.count()).toBe(10);
    }
    await page.getByRole('banner').getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await shot('13-narrow-login');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });

  it('renews the token with the refresh token before it expires', async () => {
    // Last but one: the fake clock stays installed in the browser context.
    await page.clock.install();
    await logIn(owner, 'Borealis Foods');
    const before = (await stored())!.state.account;
    // The page's clock jumps to five minutes before expiry; the service's clock is real, so the refresh succeeds.
    const due = Date.parse(before.expires_at) - 5 * 60_000 - Date.now();
    await page.clock.fastForward(due);
    // Polled from here: a string evaluated inside the page would be refused by its CSP (no 'unsafe-eval').
    for (let i = 0; i < 100 && (await storedJwt()) === before.jwt; i++)
      await new Promise((done) => setTimeout(done, 100));
    const after = (await stored())!.state.account;
    expect(after.session_id).toBe(before.session_id);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    await expectBlacklisted(before.jwt);
    expect((await api('GET', '/v1/users/me', after.jwt)).status).toBe(200);
  });

  it('ends the login, saying why, when the session is too old to be renewed (error_session_max_age)', async () => {
    // The spawned service's clock cannot be moved 30 days on, and its database belongs to it while it runs: the
    // refresh is answered at the network layer with the contract's answer for that case. What is under test is
    // the page's handling of it. The page's clock is moved to the new token's renewal point.
    await page.route('**/v1/users/refreshtoken', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ error: ['error_session_max_age'], message: 'The session is older than 30 days.' }),
      }),
    );
    try {
      await freshLoginScreen();
      await page.getByLabel('E-mail').fill(owner);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Choose a company' }).waitFor();
      await page.getByLabel('Acme Trading').check();
      await page.getByRole('button', { name: 'Log in' }).click();
      const alert = page.getByRole('alert');
      // Should the page's clock not be ahead any more, bring it to the renewal point of the new token.
      for (let i = 0; i < 50 && !(await alert.isVisible()); i++) {
        const account = (await stored())?.state.account;
        if (account) {
          const pageNow = Number(await page.evaluate('Date.now()'));
          const due = Date.parse(account.expires_at) - 10 * 60_000 - pageNow;
          if (due > 0) await page.clock.fastForward(due);
          break;
        }
        await new Promise((done) => setTimeout(done, 100));
      }
      await alert.waitFor();
      expect(await alert.textContent()).toBe(
        'Your session is more than 30 days old, the longest a session may last. Log in again.',
      );
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      expect(await stored()).toBeNull();
    } finally {
      await page.unroute('**/v1/users/refreshtoken');
    }
  });

  it('raised no uncaught page error and logged no console error', () => {
    expect(browser.problems).toEqual([]);
  });
});
