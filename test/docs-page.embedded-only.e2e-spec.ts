import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { ADMIN_PAGE_CSP } from '../src/operations/bootstrap/admin-page';
import { type Browser, browserAvailable, launchBrowser } from './support/browser';
import { type Account, createAccount, createCompanies } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

// A real browser: each step waits on the page, so give them room on a busy machine.
jest.setTimeout(90_000);

const PAGE_HEADERS = {
  'content-security-policy': ADMIN_PAGE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * docs/contract.md: `/docs` answers with the same framing and script policy as /admin, and serves only the files
 * Swagger UI needs; issue 19: logging in through Swagger UI authorizes the calls that follow.
 */
describe('the API documentation at /docs', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  const get = (path: string) => fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
  const headersOf = (res: Response) => ({
    'content-security-policy': res.headers.get('content-security-policy'),
    'x-frame-options': res.headers.get('x-frame-options'),
    'referrer-policy': res.headers.get('referrer-policy'),
  });

  it.each([
    ['/docs', 'text/html'],
    ['/docs/', 'text/html'],
    ['/docs/swagger-initializer.js', 'text/javascript'],
    ['/docs/swagger-ui-bundle.js', 'text/javascript'],
    ['/docs/swagger-ui.css', 'text/css'],
    ['/docs/index.css', 'text/css'],
    ['/docs/docs-page.css', 'text/css'],
    ['/docs/favicon-32x32.png', 'image/png'],
    ['/docs/openapi.json', 'application/json'],
  ])('serves %s (%s) under the pages’ CSP and framing headers', async (path, type) => {
    const res = await get(path);
    expect({ status: res.status, type: res.headers.get('content-type')?.split(';')[0] }).toEqual({ status: 200, type });
    expect(headersOf(res)).toEqual(PAGE_HEADERS);
  });

  it.each([
    // Swagger UI's stock page, whose inline script loads the petstore document.
    '/docs/index.html',
    '/docs/swagger-ui.js',
    '/docs/swagger-ui-bundle.js.map',
    '/docs/swagger-ui-standalone-preset.js',
    '/docs/oauth2-redirect.html',
    '/docs/package.json',
    '/docs/openapi.yaml',
    '/docs/swagger-ui-init.js',
    '/docs/../package.json',
    '/docs/nested/swagger-ui.css',
  ])('answers %s with 404 in the error shape, under the same headers', async (path) => {
    const res = await get(path);
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 404,
      body: { error: ['error_not_found'], message: expect.any(String) },
    });
    if (path.startsWith('/docs/') && !path.includes('..')) expect(headersOf(res)).toEqual(PAGE_HEADERS);
  });

  const run = browserAvailable() ? describe : describe.skip;

  run('in Chromium', () => {
    let browser: Browser;
    let page: Page;
    let account: Account;
    let companyId: number;

    beforeAll(async () => {
      [{ id: companyId }] = await createCompanies(t, 'Acme');
      account = await createAccount(t, [companyId]);
      browser = await launchBrowser();
      page = await browser.newPage();
    });
    afterAll(() => browser?.close());

    /** The operation's block, expanded, in "Try it out" mode. */
    async function tryOut(path: string) {
      const block = page.locator('.opblock', { has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
      // Deep links reopen, after a reload, the operation the address names.
      if (!(await block.evaluate((node) => node.classList.contains('is-open')))) {
        await block.locator('.opblock-summary').first().click();
      }
      await block.locator('button.try-out__btn').click();
      return block;
    }

    it('renders without a CSP violation; a login through "Try it out" authorizes the next call', async () => {
      await page.goto(`${url}/docs`);
      await page.locator('.opblock-summary-path[data-path="/v1/users/me"]').waitFor();

      const login = await tryOut('/v1/users/authenticatefinish');
      const body = { email: account.email, password: account.password, company_id: companyId };
      await login.locator('textarea.body-param__text').fill(JSON.stringify(body));
      const loggedIn = page.waitForResponse((res) => res.url().endsWith('/v1/users/authenticatefinish'));
      await login.locator('button.execute').click();
      const loginAnswer = await loggedIn;
      expect(loginAnswer.status()).toBe(200);
      const { jwt } = (await loginAnswer.json()) as { jwt: string };

      const me = await tryOut('/v1/users/me');
      const asked = page.waitForRequest((req) => req.url().endsWith('/v1/users/me'));
      const answered = page.waitForResponse((res) => res.url().endsWith('/v1/users/me'));
      await me.locator('button.execute').click();
      expect((await asked).headers().authorization).toBe(jwt);
      expect((await answered).status()).toBe(200);

      // Console errors include every CSP violation ("Refused to ...").
      expect(browser.problems).toEqual([]);
    });

    it('keeps the token of that login over a reload, as it keeps one pasted into "Authorize"', async () => {
      const jwt = (
        JSON.parse((await page.evaluate('localStorage.getItem("authorized")')) as string) as {
          Authorization: { value: string };
        }
      ).Authorization.value;
      await page.reload();
      await page.locator('.opblock-summary-path[data-path="/v1/users/me"]').waitFor();
      const me = await tryOut('/v1/users/me');
      const asked = page.waitForRequest((req) => req.url().endsWith('/v1/users/me'));
      const answered = page.waitForResponse((res) => res.url().endsWith('/v1/users/me'));
      await me.locator('button.execute').click();
      expect((await asked).headers().authorization).toBe(jwt);
      expect((await answered).status()).toBe(200);
      expect(browser.problems).toEqual([]);
    });

    it('lists the login operations first, in the order a client calls them', async () => {
      const tag = page.locator('.opblock-tag-section', {
        has: page.locator('h3', { hasText: 'users: authentication' }),
      });
      const paths = await tag
        .locator('.opblock-summary-path')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path')));
      expect(paths.slice(0, 4)).toEqual([
        '/v1/users/authenticateinit',
        '/v1/users/authenticatefinish',
        '/v1/users/refreshtoken',
        '/v1/users/logout',
      ]);
      // The tag a newcomer needs first is the first on the page.
      expect(await page.locator('.opblock-tag-section h3').first().innerText()).toMatch(/^users: authentication/);
    });
  });
});
