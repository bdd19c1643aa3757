import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); Playwright's own browser downloads are never used. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the browser tests write their screenshots (git-ignored). */
export const SCREENSHOT_DIR = resolve(__dirname, '..', '..', 'test-results', 'admin-page');

/**
 * Whether the browser tests can run here. In CI (`CI=true`) a missing browser is a failure, never a skip;
 * on a developer's machine the suite says how to install it and skips.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') {
    throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get install -y chromium).`);
  }
  process.stderr.write(
    `\n!! ${CHROMIUM} is missing: the /admin browser tests are SKIPPED (apt-get install -y chromium)\n\n`,
  );
  return false;
}

export interface Browser {
  context: BrowserContext;
  /** Uncaught page errors and console errors, for the test that asserts there were none. */
  problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Network answers the tests provoke on purpose (wrong password, a revoked token) that Chromium logs as errors. */
const EXPECTED_CONSOLE = /^Failed to load resource: the server responded with a status of (400|401|403|429)\b/;
/** A 404 the contract answers for a normal state: the Single sign-on screen of a company without a connection. */
const EXPECTED_404 = /\/v1\/sso\/connection$/;

/** Chromium with a fresh profile in a temporary folder, clipboard allowed (the copy buttons are tested). */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'staff-auth-chromium-'));
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1100, height: 800 },
    permissions: ['clipboard-read', 'clipboard-write'],
    timeout: 30_000,
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      const expected404 = / status of 404\b/.test(message.text()) && EXPECTED_404.test(message.location().url);
      if (message.type() === 'error' && !EXPECTED_CONSOLE.test(message.text()) && !expected404) {
        // A resource that failed to load is named, so that a suite can expect one exact failure and no other.
        const url = message.text().startsWith('Failed to load resource') ? ` (${message.location().url})` : '';
        problems.push(`console: ${message.text()}${url}`);
      }
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return {
    context,
    problems,
    newPage: async () => context.pages()[0] ?? (await context.newPage()),
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `action` with the page's first `method` request to `url` answered by the service's step-up refusal (401
 * error_reauthentication_required), as a proof older than 15 minutes would be (test/step-up.e2e-spec.ts drives
 * that refusal itself with a manual clock); the proof and the retry that follow are real. Checks that exactly one
 * request was refused.
 */
export async function withStepUpRefusedOnce(
  page: Page,
  url: string,
  method: string,
  action: () => Promise<void>,
): Promise<void> {
  let refused = 0;
  await page.route(url, async (route) => {
    if (route.request().method() !== method || refused > 0) return route.continue();
    refused++;
    await route.fulfill({
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ error: ['error_reauthentication_required'], message: 'Reauthenticate and retry.' }),
    });
  });
  try {
    await action();
    if (refused !== 1) throw new Error(`expected one refused ${method} ${url}, saw ${refused}`);
  } finally {
    await page.unroute(url);
  }
}
