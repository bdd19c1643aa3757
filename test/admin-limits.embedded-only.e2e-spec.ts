import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { type Browser, browserAvailable } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';
import type { RunningService } from './support/processes';

jest.setTimeout(90_000);

const PASSWORD = 'a-long-enough-password';
const DOCS = resolve(__dirname, '..', 'docs');

const run = browserAvailable() ? describe : describe.skip;

/**
 * The Limits screen of /admin (docs/contract.md, "Rate limits a client can plan with and an operator can steer"):
 * read-only, the company's overrides set with the operator CLI, the table, and who was refused in the last hour.
 */
run('the administration page: Limits, in Chromium', () => {
  const rig = new AdminPageRig();
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let acme = 0;
  const owner = 'owner@acme.example';
  const clerk = 'clerk@acme.example';

  const tabs = () => page.getByRole('navigation', { name: 'Sections' });

  async function send(method: string, path: string, init: { jwt?: string; body?: unknown } = {}) {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(init.jwt ? { authorization: init.jwt } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  }

  beforeAll(async () => {
    await rig.provision();
    acme = Number((await rig.cli('company:create', '--name', 'Acme Trading')).id);
    await rig.cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Olivia Owner');
    await rig.cli('employee:create', '--email', clerk, '--password', PASSWORD, '--name', 'Carl Clerk');
    await rig.cli('membership:add', '--email', owner, '--company', String(acme), '--permissions', '*');
    await rig.cli('membership:add', '--email', clerk, '--company', String(acme), '--permissions', 'products:read');
    const company = ['--company', String(acme)];
    await rig.cli('ratelimit:set', ...company, '--method', 'GET', '--group', 'products', '--limit', '2');
    await rig.cli(
      'ratelimit:set',
      ...company,
      '--method',
      '*',
      '--group',
      'orders',
      '--limit',
      '5',
      '--mode',
      'shadow',
    );
    await rig.cli('quota:set', ...company, '--per', 'day', '--limit', '100000');
    await rig.start();
    ({ service, browser, page } = rig);
    void browser;
  });

  afterAll(() => rig.stop());

  it('is not offered without auditevents:read', async () => {
    await page.goto(`${service.url}/admin`);
    await page.getByLabel('E-mail').fill(clerk);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await tabs().getByRole('link', { name: 'Sessions' }).waitFor();
    expect(await tabs().getByRole('link', { name: 'Limits' }).count()).toBe(0);
    await page.evaluate('localStorage.clear()');
  });

  it("shows the company's overrides, quotas, limits, and the credential the override refused", async () => {
    const login = await send('POST', '/v1/users/authenticatefinish', {
      body: { email: clerk, password: PASSWORD, company_id: acme },
    });
    const jwt = String(login.body?.jwt);
    // The first request makes the login known; then five at once against the override's 2 (one slot left).
    expect((await send('GET', '/v1/products', { jwt })).status).toBe(200);
    const burst = await Promise.all([1, 2, 3, 4, 5].map(() => send('GET', '/v1/products', { jwt })));
    const refusedCount = burst.filter((res) => res.status === 429).length;
    expect(refusedCount).toBeGreaterThanOrEqual(3);
    expect(burst.every((res) => res.status === 200 || res.status === 429)).toBe(true);

    await page.goto(`${service.url}/admin`);
    await page.reload();
    await page.getByLabel('E-mail').fill(owner);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await tabs().getByRole('link', { name: 'Limits' }).click();
    await page.getByRole('heading', { name: 'Refused in the last hour' }).waitFor();

    const refused = page.getByRole('list', { name: 'Credentials refused in the last hour' }).locator(':scope > li');
    await refused.first().waitFor();
    expect(await refused.count()).toBe(1);
    expect(await refused.first().locator('.row-title').textContent()).toBe(`A login of ${clerk}`);
    expect(await refused.first().locator('.row-meta').textContent()).toContain(`GET · products${refusedCount} refused`);

    const overrides = page.getByRole('list', { name: 'Overrides' }).locator(':scope > li .row-title');
    expect(await overrides.allTextContents()).toEqual([
      'GET · products: 2 per 3 s enforce',
      'Every method · orders: 5 per 3 s shadow',
    ]);
    const quotas = page.getByRole('list', { name: 'Quotas' }).locator(':scope > li');
    expect(await quotas.allTextContents()).toEqual(['100,000 per dayEvery credential']);
    const products = page.getByRole('table', { name: 'Rate limits' }).getByRole('row', { name: /^GET products / });
    expect(await products.getByRole('cell').allTextContents()).toEqual(['GET', 'products', String(30 * 20), '2']);
    await page.screenshot({ path: join(DOCS, 'admin-limits.png'), fullPage: false });
  });
});
