import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { DemoDataService } from '../src/operations/seed/demo-data.service';
import { type Browser, browserAvailable, launchBrowser } from './support/browser';
import { startTestApp, type TestApp } from './support/test-app';

// A real browser: each step waits on the page, so give them room on a busy machine.
jest.setTimeout(90_000);

const run = browserAvailable() ? describe : describe.skip;

type Json = Record<string, any>;

/**
 * Issue 40: Swagger UI's "Try it out" on authenticatefinish works with the body it offers. On a first start's demo
 * data, a newcomer opens /docs, presses "Try it out", pastes the password the start printed over the placeholder
 * (and nothing else), presses Execute, then calls /v1/users/me, which that login authorized.
 */
run('/docs "Try it out" on the demo data, in Chromium', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  let password: string;

  beforeAll(async () => {
    t = await startTestApp();
    const demo = await t.app.get(DemoDataService).seedIfEmpty();
    password = demo!.password;
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function tryOut(path: string) {
    const block = page.locator('.opblock', { has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
    if (!(await block.evaluate((node) => node.classList.contains('is-open')))) {
      await block.locator('.opblock-summary').first().click();
    }
    await block.locator('button.try-out__btn').click();
    return block;
  }

  it('opens with a short introduction: a few sentences and links, not a wall of inline code', async () => {
    await page.goto(`${url}/docs`);
    await page.locator('.opblock-summary-path[data-path="/v1/users/me"]').waitFor();
    const intro = page.locator('.information-container .info .description');
    expect(await intro.locator('code').count()).toBeLessThanOrEqual(6);
    expect(await intro.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(
      expect.arrayContaining(['/admin', '/docs/openapi.json']),
    );
    expect((await intro.innerText()).length).toBeLessThan(1000);
  });

  it('logs in with the default body (the demo password pasted in), then calls /v1/users/me authorized', async () => {
    const login = await tryOut('/v1/users/authenticatefinish');
    const textarea = login.locator('textarea.body-param__text');
    const offered = JSON.parse(await textarea.inputValue()) as Json;
    // A password login only: no login_ticket beside the credentials, no TOTP code for an account without TOTP.
    expect(offered).toEqual({ email: 'owner@demo.example', password: 'PASTE-PASSWORD', company_id: 1 });
    await textarea.fill(JSON.stringify({ ...offered, password }, null, 2));
    const loggedIn = page.waitForResponse((res) => res.url().endsWith('/v1/users/authenticatefinish'));
    await login.locator('button.execute').click();
    const answer = await loggedIn;
    expect(answer.status()).toBe(200);
    const { jwt, company } = (await answer.json()) as { jwt: string; company: { name: string } };
    expect(company.name).toBe('Demo Company A');

    const me = await tryOut('/v1/users/me');
    const asked = page.waitForRequest((req) => req.url().endsWith('/v1/users/me'));
    const answered = page.waitForResponse((res) => res.url().endsWith('/v1/users/me'));
    await me.locator('button.execute').click();
    expect((await asked).headers().authorization).toBe(jwt);
    expect((await answered).status()).toBe(200);
    expect(browser.problems).toEqual([]);
  });

  it('shows a sample token shaped like the ones it issues (EdDSA), and the other ways in as named examples', async () => {
    const document = (await (await fetch(`${url}/docs/openapi.json`)).json()) as Json;
    const finish = document.paths['/v1/users/authenticatefinish'].post;
    const examples = finish.requestBody.content['application/json'].examples as Json;
    expect(Object.keys(examples)).toEqual(['password', 'totp', 'passkey']);
    expect(Object.keys(examples.passkey.value).sort()).toEqual(['company_id', 'login_ticket']);
    const sample = document.components.schemas.LoginResultDto.properties.jwt.example as string;
    const header = JSON.parse(Buffer.from(sample.split('.')[0], 'base64url').toString()) as Json;
    expect(header.alg).toBe('EdDSA');
  });
});
