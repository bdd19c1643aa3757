import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { type Browser, browserAvailable } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';
import type { RunningService } from './support/processes';

jest.setTimeout(90_000);

const PASSWORD = 'a-long-enough-password';
const DOCS = resolve(__dirname, '..', 'docs');

const run = browserAvailable() ? describe : describe.skip;

/** The Activity screen of /admin: sentences, filters, raw events, and new events arriving without a reload. */
run('the administration page: Activity, in Chromium', () => {
  const rig = new AdminPageRig();
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let acme = 0;
  const owner = 'owner@acme.example';
  const clerk = 'clerk@acme.example';
  const temp = 'temp@acme.example';
  const ids: Record<string, number> = {};

  const cli = (...args: string[]) => rig.cli(...args);

  async function post(path: string, body: unknown): Promise<number> {
    const res = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    return res.status;
  }

  async function logIn(email: string): Promise<void> {
    await page.goto(`${service.url}/admin`);
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
  }

  const tabs = () => page.getByRole('navigation', { name: 'Sections' });
  const rows = () => page.getByRole('list', { name: 'Events' }).locator(':scope > li');
  /** Waits until the list shows exactly `n` events. */
  // (Polled from here: the page's script policy refuses the string evaluation of waitForFunction.)
  const shown = async (n: number, timeout = 30_000) => {
    const until = Date.now() + timeout;
    while ((await rows().count()) !== n) {
      if (Date.now() > until) throw new Error(`the list shows ${await rows().count()} events, not ${n}`);
      await page.waitForTimeout(100);
    }
  };
  const sentences = async () => rows().locator('.row-title').allTextContents();

  beforeAll(async () => {
    await rig.provision();
    // The embedded database admits one process at a time: the CLI's changes (recorded as the operator's) first.
    acme = Number((await cli('company:create', '--name', 'Acme Trading')).id);
    for (const [email, name] of [
      [owner, 'Olivia Owner'],
      [clerk, 'Carl Clerk'],
      [temp, 'Tim Temp'],
    ]) {
      ids[email] = Number((await cli('employee:create', '--email', email, '--password', PASSWORD, '--name', name)).id);
    }
    await cli('membership:add', '--email', owner, '--company', String(acme), '--permissions', '*');
    await cli('membership:add', '--email', clerk, '--company', String(acme), '--permissions', 'products:read');
    await cli('membership:add', '--email', temp, '--company', String(acme), '--permissions', 'orders:read');
    await cli('membership:remove', '--email', temp, '--company', String(acme));
    await rig.start();
    ({ service, browser, page } = rig);
    // A failed login of the clerk, before anyone looks.
    expect(await post('/v1/users/authenticateinit', { email: clerk, password: 'not-the-password' })).toBe(401);
  });

  afterAll(() => rig.stop());

  it('is offered only to a login holding auditevents:read', async () => {
    await logIn(clerk);
    await tabs().getByRole('link', { name: 'Sessions' }).waitFor();
    expect(await tabs().getByRole('link', { name: 'Activity' }).count()).toBe(0);
  });

  it('reads the events out as sentences, newest first, with the raw event on demand', async () => {
    await logIn(owner);
    await tabs().getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await rows().first().waitFor();
    expect(await sentences()).toEqual([
      `${owner} logged in`,
      `${clerk} logged in`,
      `Failed login as ${clerk}: wrong password`,
      `The operator removed ${temp} from the company`,
      `The operator added ${temp} to the company (orders:read)`,
      `The operator added ${clerk} to the company (products:read)`,
      `The operator added ${owner} to the company (*)`,
    ]);

    const removal = rows().nth(3);
    await removal.getByRole('button', { name: 'Show event' }).click();
    const raw = JSON.parse((await removal.getByLabel('The event as recorded').textContent()) ?? '{}');
    expect(raw).toMatchObject({
      type: 'membership.removed',
      company_id: acme,
      actor: { kind: 'operator', id: null, email: null },
      subject: { kind: 'employee', id: ids[temp], email: temp },
    });
    await removal.getByRole('button', { name: 'Hide event' }).click();
  });

  it('filters by type and by person', async () => {
    await page.getByLabel('What').selectOption({ label: 'Failed logins' });
    await shown(1);
    expect(await sentences()).toEqual([`Failed login as ${clerk}: wrong password`]);

    await page.getByLabel('What').selectOption({ label: 'Everything' });
    await page.getByLabel('Person').selectOption({ label: temp });
    await shown(2);
    expect(await sentences()).toEqual([
      `The operator removed ${temp} from the company`,
      `The operator added ${temp} to the company (orders:read)`,
    ]);

    await page.getByLabel('Person').selectOption({ label: owner });
    await page.getByLabel('Show events').selectOption({ label: 'done by this person' });
    await shown(1);
    expect(await sentences()).toEqual([`${owner} logged in`]);
    await page.getByLabel('Person').selectOption({ label: 'Anyone' });
  });

  it('shows a new event without a reload', async () => {
    await shown(7);
    const url = page.url();
    // The clerk fails to log in again, elsewhere: the open screen shows it on its own.
    expect(await post('/v1/users/authenticateinit', { email: clerk, password: 'wrong-again-password' })).toBe(401);
    await shown(8, 15_000);
    expect((await sentences())[0]).toBe(`Failed login as ${clerk}: wrong password`);
    expect(page.url()).toBe(url);
    await page.screenshot({ path: join(DOCS, 'admin-activity.png'), fullPage: false });
    expect(browser.problems).toEqual([]);
  });
});
