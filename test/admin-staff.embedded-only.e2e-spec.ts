import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { type Browser, browserAvailable } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';
import type { RunningService } from './support/processes';

jest.setTimeout(90_000);

const STORAGE_KEY = 'MAIN::LoginAccount';
const PASSWORD = 'a-long-enough-password';
const NEW_PASSWORD = 'Brand-New-Lantern-5521';
const DOCS = resolve(__dirname, '..', 'docs');

const run = browserAvailable() ? describe : describe.skip;

/** The staff-account screens of the administration page, and its two robustness rules, in Chromium. */
run('the administration page’s staff-account screens, in Chromium', () => {
  const rig = new AdminPageRig();
  let service: RunningService;
  let browser: Browser;
  /** Every answer of 500 or more the page got, whatever the page made of it. */
  const serverErrors: string[] = [];
  let page: Page;
  let acme = 0;
  const owner = 'owner@staff.example';
  const clerk = 'clerk@staff.example';
  let clerkPassword = PASSWORD;
  let clerkSecret = '';
  let clerkLastStep = 0;
  let clerkRecoveryCodes: string[] = [];

  /**
   * The clerk's next TOTP code on the real clock. The service takes each time step once, only a later one than
   * the last it took, and only within one step of now: wait until such a step exists, then use it.
   */
  async function nextCode(): Promise<string> {
    const stepNow = () => Math.floor(Date.now() / 30_000);
    const target = Math.max(clerkLastStep + 1, stepNow());
    while (stepNow() < target - 1) await new Promise((done) => setTimeout(done, 250));
    clerkLastStep = target;
    return totpCodeAt(clerkSecret, target * 30_000);
  }
  async function ownerJwt(): Promise<string> {
    const login = await api('POST', '/v1/users/authenticatefinish', {
      email: owner,
      password: PASSWORD,
      company_id: acme,
    });
    return login.body.jwt as string;
  }
  async function clerkMfa(): Promise<boolean> {
    const listed = await api('GET', `/v1/users?q=${encodeURIComponent(clerk)}`, undefined, await ownerJwt());
    return (listed.body.data as Array<{ email: string; mfa: boolean }>).find((e) => e.email === clerk)!.mfa;
  }

  const cli = (...args: string[]) => rig.cli(...args);
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
  const stored = async () =>
    (await page.evaluate(`localStorage.getItem(${JSON.stringify(STORAGE_KEY)})`)) as string | null;

  async function logIn(email: string, password: string, otp?: () => string | Promise<string>): Promise<void> {
    await page.goto(`${service.url}/admin`);
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Continue' }).click();
    if (otp) {
      await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
      await page.getByLabel('Authentication code').fill(await otp());
      await page.getByRole('button', { name: 'Log in' }).click();
    }
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
  }
  const openTab = (name: string) =>
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();

  beforeAll(async () => {
    await rig.provision();
    acme = Number((await cli('company:create', '--name', 'Acme Staffing')).id);
    await cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Olivia Owner');
    await cli('membership:add', '--email', owner, '--company', String(acme), '--permissions', '*');
    await cli('employee:create', '--email', clerk, '--password', PASSWORD, '--name', 'Carl Clerk');
    await cli('membership:add', '--email', clerk, '--company', String(acme), '--permissions', 'products:read');
    await rig.start();
    ({ service, browser, page } = rig);
    page.on('response', (response) => {
      if (response.status() >= 500)
        serverErrors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
    // Seven CLI runs, a service start and a browser launch: minutes on a machine busy with other suites.
  }, 240_000);
  afterAll(() => rig.stop());

  it.each([
    ['not JSON', '{"state": {"acc'],
    ['another shape', JSON.stringify({ state: { account: { jwt: 42, company: 'x' } }, version: 0 })],
    ['another version', JSON.stringify({ state: { account: null }, version: 7 })],
  ])(
    'a stored login it cannot read (%s) counts as logged out and is removed, never a blank page',
    async (_what, value) => {
      await page.goto(`${service.url}/admin`);
      await page.evaluate(`localStorage.setItem(${JSON.stringify(STORAGE_KEY)}, ${JSON.stringify(value)})`);
      await page.reload();
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      expect(await stored()).toBeNull();
    },
  );

  it('says "logged out" only after the service confirmed; a failed logout keeps the login and says so', async () => {
    await logIn(clerk, clerkPassword);
    const before = await stored();
    const jwt = JSON.parse(before!).state.account.jwt as string;
    await page.route('**/v1/users/logout', (route) => route.abort('failed'));
    try {
      await page.getByRole('button', { name: 'Log out' }).first().click();
      await page.getByText(/Logging out failed/).waitFor();
      expect(await stored()).toBe(before);
      expect((await api('GET', '/v1/users/me', undefined, jwt)).status).toBe(200);
      await page.getByRole('heading', { name: 'Your token' }).waitFor();
    } finally {
      await page.unroute('**/v1/users/logout');
    }
    await page.getByRole('button', { name: 'Log out' }).first().click();
    await page.getByText('You are logged out.').waitFor();
    expect(await stored()).toBeNull();
    expect((await api('GET', '/v1/users/me', undefined, jwt)).body.error).toEqual(['error_jwt_blacklisted']);
  });

  it('invites someone: the code is shown once, and it lets them join', async () => {
    await logIn(owner, PASSWORD);
    await openTab('Employees');
    await page.getByLabel('E-mail to invite').fill('nina@staff.example');
    await page.getByRole('group', { name: 'Permissions' }).last().getByLabel('products:read').check();
    await page.getByRole('button', { name: 'Invite' }).click();
    const codeField = page.getByLabel(/Invitation code for nina@staff\.example/);
    await codeField.waitFor();
    const code = await codeField.inputValue();
    await page.screenshot({ path: `${DOCS}/admin-invite.png`, fullPage: true });
    const accepted = await api('POST', '/v1/users/invitations/accept', {
      code,
      email: 'nina@staff.example',
      password: NEW_PASSWORD,
      name: 'Nina',
    });
    expect(accepted.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.locator('li', { hasText: 'nina@staff.example' }).waitFor();
  });

  it('removes an employee after a confirmation; their token stops working', async () => {
    const nina = await api('POST', '/v1/users/authenticatefinish', {
      email: 'nina@staff.example',
      password: NEW_PASSWORD,
      company_id: acme,
    });
    await openTab('Employees');
    await page.getByRole('button', { name: 'Remove Nina' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Nina is removed from this company.').waitFor();
    expect((await api('GET', '/v1/users/me', undefined, nina.body.jwt)).body.error).toEqual(['error_jwt_blacklisted']);
    // The notice shows as the list reloads; the row goes when the reloaded list arrives. A selector, not
    // waitForFunction: once it has to poll, that evaluates a string in the page, which the page's script policy
    // refuses (a CI run failed so when the list had not reloaded at the first check).
    await page.waitForSelector('li:has-text("nina@staff.example")', { state: 'detached', timeout: 10_000 });
  });

  it('keeps the Employees screen compact: one permission picker, search on one line, at 1280 and 375 px', async () => {
    const heights: Record<number, number> = {};
    for (const [width, height] of [
      [1280, 800],
      [375, 740],
    ]) {
      await page.setViewportSize({ width, height });
      await openTab('Employees');
      await page.getByRole('list', { name: 'Employees' }).getByText('Carl Clerk').waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('group', { name: 'Permissions' }).count()).toBe(1);
      const search = page.getByRole('search');
      const [box, button] = [
        await search.getByRole('searchbox').boundingBox(),
        await search.getByRole('button', { name: 'Search' }).boundingBox(),
      ];
      expect(Math.abs(box!.y - button!.y)).toBeLessThan(4);
      heights[width] = (await page.evaluate('document.documentElement.scrollHeight')) as number;
      await page.screenshot({
        path: `${DOCS}/admin-employees${width === 375 ? '-375' : ''}.png`,
        fullPage: true,
      });
    }
    const listed = await page.locator('[data-employee-id]').count();
    process.stdout.write(`\nEmployees screen, ${listed} employees (px tall): ${JSON.stringify(heights)}\n`);
    // Issue 29: two or three copies of the 12-permission grid made it 1,735 px and more at 1280 (2,248 at 1280 and
    // 3,995 at 375 with six employees; 1,364 and 2,103 since). Measured here: 1,131 and 1,539, with a notice shown.
    expect(heights[1280]).toBeLessThanOrEqual(1200);
    expect(heights[375]).toBeLessThanOrEqual(1700);
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it('lists open invitations (never a code) and revokes one after a confirmation; its code stops working', async () => {
    await logIn(owner, PASSWORD);
    await openTab('Employees');
    const inviteCard = page.locator('section', { has: page.getByRole('heading', { name: 'Invite or add someone' }) });
    await inviteCard.getByLabel('E-mail to invite').fill('otto@staff.example');
    await inviteCard.getByLabel('products:read').check();
    await inviteCard.getByRole('button', { name: 'Invite', exact: true }).click();
    const code = await page.getByLabel(/Invitation code for otto@staff\.example/).inputValue();
    const list = page.getByRole('list', { name: 'Open invitations' });
    const row = list.getByRole('listitem').filter({ hasText: 'otto@staff.example' });
    await row.waitFor();
    expect(await row.innerText()).toContain('products:read');
    // With its zone, as every time on the page.
    expect(await row.innerText()).toMatch(/Expires .+ (AM|PM) ([A-Z]{2,4}|GMT[+-]\d{1,2}(:\d\d)?)\b/);
    expect(await list.innerText()).not.toContain(code);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke the invitation for otto@staff.example' }).click();
    await page.screenshot({ path: `${DOCS}/admin-invitations.png`, fullPage: true });
    await row.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('The invitation for otto@staff.example is revoked.').waitFor();
    await row.waitFor({ state: 'detached' });
    const open = await api('GET', '/v1/users/invitations', undefined, await ownerJwt());
    expect(open.body.data.map((i: { email: string }) => i.email)).not.toContain('otto@staff.example');
    const accepted = await api('POST', '/v1/users/invitations/accept', {
      code,
      email: 'otto@staff.example',
      password: NEW_PASSWORD,
      name: 'Otto',
    });
    expect(accepted.status).toBe(400);
    expect(accepted.body.error).toEqual(['error_invitation_invalid']);
  });

  it('shows someone with users:read and TOTP off only the set-up, not the turn-off form', async () => {
    await openTab('Account');
    await page.getByRole('button', { name: 'Set up two-step verification' }).waitFor();
    await page.getByRole('heading', { name: 'Turn off two-step verification' }).waitFor({ state: 'detached' });
  });

  it('changes one’s own password, refusing a common one first', async () => {
    await logIn(clerk, clerkPassword);
    await openTab('Account');
    await page.getByLabel('Current password').first().fill(clerkPassword);
    await page.getByLabel('New password').fill('password1');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(/too common/).waitFor();
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.', { exact: false }).waitFor();
    clerkPassword = NEW_PASSWORD;
    const login = await api('POST', '/v1/users/authenticateinit', { email: clerk, password: NEW_PASSWORD });
    expect(login.status).toBe(200);
  });

  it('sets up TOTP with a QR code and recovery codes shown once', async () => {
    await openTab('Account');
    // The clerk may not list employees, so the page cannot know TOTP is off and offers the turn-off form too.
    const setUp = page.locator('form', { has: page.getByRole('button', { name: 'Set up two-step verification' }) });
    await setUp.getByLabel('Current password').fill(clerkPassword);
    await setUp.getByRole('button', { name: 'Set up two-step verification' }).click();
    await page.getByRole('img', { name: 'QR code to scan' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Turn off two-step verification' }).count()).toBe(0);
    clerkSecret = await page.getByLabel('Key', { exact: true }).inputValue();
    clerkRecoveryCodes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allInnerTexts();
    expect(clerkRecoveryCodes).toHaveLength(10);
    await page.screenshot({ path: `${DOCS}/admin-totp-setup.png`, fullPage: true });
    await page.getByLabel('Code from the app').fill(await nextCode());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Two-step verification is on.', { exact: false }).waitFor();
    expect(await page.getByRole('list', { name: 'Recovery codes' }).count()).toBe(0);
  });

  it('asks for the code after the password when TOTP is on', async () => {
    // The confirmation used this step's code; a later step's is accepted once.
    await logIn(clerk, clerkPassword, nextCode);
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    await page.goto(`${service.url}/admin`);
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByLabel('E-mail').fill(clerk);
    await page.getByLabel('Password').fill(clerkPassword);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Authentication code').waitFor();
    await page.screenshot({ path: `${DOCS}/admin-totp-login.png`, fullPage: true });
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText(/That code is not valid/).waitFor();
    expect(await stored()).toBeNull();
  });

  it('turns off one’s own TOTP with the password and a current code; a wrong code is refused and keeps it on', async () => {
    // In with a recovery code typed where the page asks for the code: no wait for a fresh TOTP step here.
    await logIn(clerk, clerkPassword, () => clerkRecoveryCodes.shift()!.trim());
    await openTab('Account');
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'Turn off two-step verification' }) });
    await form.getByLabel('Current password').fill(clerkPassword);
    const right = totpCodeAt(clerkSecret, Date.now());
    await form.getByLabel('Code from the app').fill(String((Number(right) + 500_000) % 1_000_000).padStart(6, '0'));
    await form.getByRole('button', { name: 'Turn off two-step verification' }).click();
    await form.getByText('The one-time code or recovery code is not valid.').waitFor();
    await page.screenshot({ path: `${DOCS}/admin-totp-disable.png`, fullPage: true });
    expect(await clerkMfa()).toBe(true);
    await form.getByLabel('Code from the app').fill(await nextCode());
    await form.getByRole('button', { name: 'Turn off two-step verification' }).click();
    await page.getByText('Two-step verification is off.', { exact: false }).waitFor();
    expect(await clerkMfa()).toBe(false);
    expect(await page.getByRole('heading', { name: 'Turn off two-step verification' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Set up two-step verification' }).waitFor();
    await logIn(clerk, clerkPassword); // no code asked any more
    // Up to one wait for a fresh TOTP step on the real clock.
  }, 150_000);

  it('shows API keys with their owner and prefix', async () => {
    await logIn(owner, PASSWORD);
    const jwt = JSON.parse((await stored())!).state.account.jwt as string;
    const key = await api('POST', '/v1/apikeys', { name: 'sync', permissions: ['products:read'] }, jwt);
    await openTab('API keys');
    await page.getByText(owner).first().waitFor();
    await page.getByText(key.body.api_key.split(':')[0]).waitFor();
  });

  it('raised no uncaught page error, logged no console error and got no 5xx', () => {
    expect(serverErrors).toEqual([]);
    // The one failure provoked on purpose: the logout aborted by the test's route ("a failed logout keeps the
    // login"). Any other, a 500 from the API above all, is a problem.
    const abortedLogout = `console: Failed to load resource: net::ERR_FAILED (${service.url}/v1/users/logout)`;
    expect(browser.problems.filter((problem) => problem !== abortedLogout)).toEqual([]);
  });
});
