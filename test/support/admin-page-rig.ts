import type { Page } from 'playwright-core';
import { type Browser, launchBrowser } from './browser';
import { type ProvisionedDatabase, provisionDatabase } from './databases';
import { CHILD_TEST_ENV, killChildren, requireBuild, runCli, type RunningService, startService } from './processes';

/**
 * What every /admin browser suite sets up: an embedded database of its own, the CLI to set the scene on it, then
 * a built service on it and a Chromium page. The embedded database admits one process at a time, so the scene is
 * set with `cli` before `start()`.
 */
export class AdminPageRig {
  db!: ProvisionedDatabase;
  service!: RunningService;
  browser!: Browser;
  page!: Page;

  private env(): Record<string, string> {
    return { ...CHILD_TEST_ENV, ...this.db.env, JWT_SECRET: 'x'.repeat(40) };
  }

  async provision(): Promise<void> {
    requireBuild();
    this.db = await provisionDatabase();
  }

  /**
   * Runs one CLI command and answers the JSON object it printed last. `--password P` is written to the CLI's
   * standard input, as the CLI requires (it refuses a password on its command line).
   */
  async cli(...args: string[]): Promise<Record<string, unknown>> {
    const at = args.indexOf('--password');
    const input = at === -1 ? '' : `${args[at + 1]}\n`;
    if (at !== -1) args = [...args.slice(0, at), ...args.slice(at + 2)];
    const result = await runCli(args, this.env(), 40_000, input);
    if (result.code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  }

  /** `env`: settings of the suite's own (a fixed PORT and the passkeys' WEBAUTHN_* for a browser ceremony). */
  async start(env: Record<string, string> = {}): Promise<void> {
    this.service = await startService(
      // Generous request limits: a suite logs in many times from one address; the login lock is not scaled.
      { ...this.env(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_SCALE: '20', ...env },
      60_000,
    );
    this.browser = await launchBrowser();
    this.page = await this.browser.newPage();
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    await this.service?.stop().catch(() => undefined);
    await killChildren();
    await this.db?.drop();
  }
}
