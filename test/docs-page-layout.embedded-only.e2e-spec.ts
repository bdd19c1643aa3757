import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { type Browser, browserAvailable, launchBrowser } from './support/browser';
import { type Account, createAccount, createCompanies } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(120_000);

const DOCS = resolve(__dirname, '..', 'docs');

/** Issue 29: one expanded operation fits in about two screens of 1280 × 800 (it measured 4,700 to 7,600 px). */
const MAX_OPERATION_PX = 1700;

const run = browserAvailable() ? describe : describe.skip;

run('Swagger UI at /docs, measured in Chromium at 1280 × 800', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  let account: Account;
  let companyId: number;
  const measured: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    [{ id: companyId }] = await createCompanies(t, 'Acme');
    account = await createAccount(t, [companyId]);
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${url}/docs`);
    await page.locator('.opblock-summary-path[data-path="/v1/users/me"]').first().waitFor();
  });
  afterAll(async () => {
    process.stdout.write(`\nExpanded operations at 1280 × 800 (px): ${JSON.stringify(measured)}\n`);
    await browser?.close();
    await t?.close();
  });

  const blockOf = (method: string, path: string): Locator =>
    page.locator(`.opblock-${method}`, { has: page.locator(`.opblock-summary-path[data-path="${path}"]`) }).first();

  async function expand(method: string, path: string): Promise<Locator> {
    const block = blockOf(method, path);
    if (!(await block.evaluate((node) => node.classList.contains('is-open')))) {
      await block.locator('.opblock-summary').first().click();
    }
    await block.locator('.responses-wrapper').waitFor();
    return block;
  }

  async function heightOf(name: string, block: Locator): Promise<number> {
    const box = await block.boundingBox();
    measured[name] = Math.round(box!.height);
    return measured[name];
  }

  it.each([
    ['get', '/v1/users/me'],
    ['get', '/v1/products'],
    ['put', '/v1/users/{id}/permissions'],
  ])('%s %s, expanded, is at most two screens tall', async (method, path) => {
    const block = await expand(method, path);
    if (path === '/v1/users/me') await block.screenshot({ path: `${DOCS}/docs-operation.png` });
    expect(await heightOf(`${method.toUpperCase()} ${path}`, block)).toBeLessThanOrEqual(MAX_OPERATION_PX);
    await block.locator('.opblock-summary').first().click();
  });

  it('unfolds an error answer to its example, whose name reads without Markdown backticks', async () => {
    const block = await expand('get', '/v1/users/me');
    const row = block.locator('tr.response-folded[data-code="500"]');
    await row.locator('summary').first().click();
    const names = await row.locator('.response-control-examples select option').allInnerTexts();
    expect(names).toEqual([expect.stringContaining('correlation_id (also the X-Request-Id header)')]);
    expect(names.join('')).not.toContain('`');
    await row.locator('.example').first().waitFor();
    await block.locator('.opblock-summary').first().click();
  });

  it('POST /v1/users/authenticatefinish, after "Execute", is at most two screens tall', async () => {
    const block = await expand('post', '/v1/users/authenticatefinish');
    await block.locator('button.try-out__btn').click();
    const body = { email: account.email, password: account.password, company_id: companyId };
    await block.locator('textarea.body-param__text').fill(JSON.stringify(body));
    const answered = page.waitForResponse((res) => res.url().endsWith('/v1/users/authenticatefinish'));
    await block.locator('button.execute').click();
    expect((await answered).status()).toBe(200);
    await block.locator('.live-responses-table').waitFor();
    await block.scrollIntoViewIfNeeded();
    await block.screenshot({ path: `${DOCS}/docs-login-executed.png` });
    expect(await heightOf('POST /v1/users/authenticatefinish (executed)', block)).toBeLessThanOrEqual(MAX_OPERATION_PX);
  });
});
