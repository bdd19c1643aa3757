import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { browserAvailable } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';

jest.setTimeout(120_000);

const PASSWORD = 'a-long-enough-password';
/** The screens a newcomer found cramped (issue 40), at the two widths, for docs/admin-page.md and the review. */
const SHOTS = resolve(__dirname, '..', 'docs', 'newcomer');
const WIDTHS = [375, 1280] as const;

const run = browserAvailable() ? describe : describe.skip;

interface Box {
  top: number;
  bottom: number;
}

/** The vertical space between two elements' boxes (negative when they overlap). */
async function gapBetween(page: Page, above: string, below: string): Promise<number> {
  const [a, b] = (await page.evaluate(
    `[${JSON.stringify(above)}, ${JSON.stringify(below)}].map((selector) => {
      const rect = document.querySelector(selector).getBoundingClientRect();
      return { top: rect.top, bottom: rect.bottom };
    })`,
  )) as [Box, Box];
  return b.top - a.bottom;
}

/**
 * The administration page as a newcomer met it on a phone (375 px) and a laptop (1280 px): the navigation, the
 * Employees search and pager, the Limits cards and table, the Activity filters and event streams, and the Single
 * sign-on screen's first field. Each measures what the eye saw (rows, gaps, a cut placeholder) and writes the
 * screenshot it measured to docs/newcomer/after-<screen>-<width>.png.
 */
run('the administration page at 375 and 1280 px', () => {
  const rig = new AdminPageRig();
  let page: Page;
  let company = 0;
  const owner = 'owner@demo.example';

  async function api(method: string, path: string, body?: unknown, jwt?: string) {
    const res = await fetch(`${rig.service.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(jwt ? { authorization: jwt } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
  }

  async function open(tab: string, width: number, ready: string) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 800 });
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: tab }).click();
    await page.locator(ready).first().waitFor();
    await page.waitForLoadState('networkidle');
  }

  /** The whole page, or (long screens) the viewport with `target` scrolled into its middle. */
  async function shoot(name: string, width: number, target?: string) {
    if (target)
      await page
        .locator(target)
        .first()
        .evaluate((node) => node.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: join(SHOTS, `after-${name}-${width}.png`), fullPage: target === undefined });
    await page.evaluate('window.scrollTo(0, 0)');
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    await rig.provision();
    company = Number((await rig.cli('company:create', '--name', 'Demo Company A')).id);
    await rig.cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Demo Owner');
    await rig.cli('membership:add', '--email', owner, '--company', String(company), '--permissions', '*');
    await rig.start();
    page = rig.page;
    const login = await api('POST', '/v1/users/authenticatefinish', {
      email: owner,
      password: PASSWORD,
      company_id: company,
    });
    // More than one page of employees, so that the pager has somewhere to go.
    for (let i = 1; i <= 22; i++) {
      const created = await api(
        'POST',
        '/v1/users',
        { email: `clerk${i}@demo.example`, password: PASSWORD, name: `Clerk ${i}`, permissions: ['products:read'] },
        String(login.body.jwt),
      );
      expect(created.status).toBe(201);
    }
    await page.goto(`${rig.service.url}/admin`);
    await page.getByLabel('E-mail').fill(owner);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
  });

  afterAll(() => rig.stop());

  it.each(WIDTHS)('at %i px the navigation takes at most two rows', async (width) => {
    await open('Home', width, 'h2');
    await shoot('home', width);
    const rows = (await page.evaluate(
      `new Set([...document.querySelectorAll('nav[aria-label="Sections"] a')].map((a) => Math.round(a.getBoundingClientRect().top))).size`,
    )) as number;
    expect(rows).toBeLessThanOrEqual(width === 375 ? 2 : 1);
  });

  it.each(WIDTHS)(
    'at %i px the Employees search shows its whole placeholder and the pager stays on one line',
    async (width) => {
      await open('Employees', width, '[data-employee-id]');
      await shoot('employees', width, '#employee-search');
      await shoot('employees-pager', width, 'nav[aria-label="Pages of employees"]');
      // The placeholder's width in the input's own font, against the room the input gives its text.
      const room = (await page.evaluate(`(() => {
      const input = document.getElementById('employee-search');
      const style = getComputedStyle(input);
      const context = document.createElement('canvas').getContext('2d');
      context.font = style.font;
      const text = context.measureText(input.placeholder).width;
      const inner = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return inner - text;
    })()`)) as number;
      expect(room).toBeGreaterThan(0);
      const pager = page.getByRole('navigation', { name: 'Pages of employees' });
      const tops = await pager
        .locator(':scope > *')
        .evaluateAll((items) =>
          items.map((item) => Math.round(item.getBoundingClientRect().top + item.getBoundingClientRect().height / 2)),
        );
      expect(tops.length).toBe(3);
      expect(Math.max(...tops) - Math.min(...tops)).toBeLessThanOrEqual(2);
    },
  );

  it.each(WIDTHS)('at %i px the Limits cards stand apart and a clipped table shows that it scrolls', async (width) => {
    await open('Limits', width, 'table[aria-label="Rate limits"]');
    await shoot('limits', width);
    const cards = await page.locator('main section.card').evaluateAll((sections) =>
      sections.map((section) => {
        const rect = section.getBoundingClientRect();
        return { top: rect.top, bottom: rect.bottom };
      }),
    );
    // Refused in the last hour, overrides, quotas, the table.
    expect(cards.length).toBe(4);
    for (let i = 1; i < cards.length; i++) expect(cards[i].top - cards[i - 1].bottom).toBeGreaterThanOrEqual(12);
    const scroller = (await page.evaluate(`(() => {
      const box = document.querySelector('.table-scroll');
      return { clipped: box.scrollWidth > box.clientWidth, shade: getComputedStyle(box).backgroundImage };
    })()`)) as { clipped: boolean; shade: string };
    if (width === 375) expect(scroller.clipped).toBe(true);
    // A clipped edge is shaded (a shadow that scrolls away when the edge is reached), so it reads as "more".
    expect(scroller.shade).toMatch(/gradient/);
  });

  it.each(WIDTHS)('at %i px the Activity filters say what they do and "Add stream" stands apart', async (width) => {
    await open('Activity', width, '#activity-role');
    await page.getByText('No stream yet.').waitFor();
    await shoot('activity', width, '#activity-role');
    await shoot('streams', width, 'section[aria-labelledby="streams-title"]');
    const role = page.locator('#activity-role');
    expect(await page.locator('label[for="activity-role"]').textContent()).toBe('Show events');
    expect(await role.locator('option').allTextContents()).toEqual(['about this person', 'done by this person']);
    // Without a person chosen the choice means nothing, and says so by being off.
    expect(await role.isDisabled()).toBe(true);
    await page.locator('#activity-person').selectOption({ label: owner });
    expect(await role.isDisabled()).toBe(false);
    await page.locator('#activity-person').selectOption({ label: 'Anyone' });
    const addStream = 'section[aria-labelledby="streams-title"] button[type="submit"]';
    const empty = 'section[aria-labelledby="streams-title"] > p.muted:last-child';
    expect(await page.locator(empty).textContent()).toBe('No stream yet.');
    expect(await gapBetween(page, addStream, empty)).toBeGreaterThanOrEqual(8);
  });

  it.each(WIDTHS)('at %i px the Single sign-on redirect URI stands apart from the first field', async (width) => {
    await open('Single sign-on', width, '#sso-issuer');
    await shoot('sso', width);
    // The URI and its Copy button (side by side, or stacked at 375 px), then the form's first label.
    const uri = 'section[aria-labelledby="sso-title"] > .copy-row';
    expect(await gapBetween(page, uri, 'label[for="sso-issuer"]')).toBeGreaterThanOrEqual(8);
  });
});
