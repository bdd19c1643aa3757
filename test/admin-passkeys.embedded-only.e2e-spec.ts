import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { AdminPageRig } from './support/admin-page-rig';
import { browserAvailable, withStepUpRefusedOnce } from './support/browser';

jest.setTimeout(90_000);

const PASSWORD = 'a-long-enough-password';
const DOCS = resolve(__dirname, '..', 'docs');
const STORAGE_KEY = 'MAIN::LoginAccount';

const run = browserAvailable() ? describe : describe.skip;

/** A free loopback port: WebAuthn's origin must be known before the service starts (WEBAUTHN_ORIGINS). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/**
 * Passkeys in the administration page, in Chromium with the DevTools virtual authenticator (CTAP2, internal,
 * resident keys, user verification): register on the Account screen, sign in with it and pick a company, the
 * step-up prompt, remove it. The page is opened on `localhost` (an IP address cannot be a WebAuthn RP ID).
 */
run('passkeys in the administration page, in Chromium', () => {
  const rig = new AdminPageRig();
  let page: Page;
  let cdp: CDPSession;
  let origin = '';
  let acme = 0;
  let beta = 0;
  const owner = 'paula@staff.example';

  const openTab = (name: string) =>
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
  const storedCompany = async () => {
    const raw = (await page.evaluate(`localStorage.getItem(${JSON.stringify(STORAGE_KEY)})`)) as string | null;
    return raw ? (JSON.parse(raw).state.account.company.id as number) : null;
  };
  async function logOutToLogin(): Promise<void> {
    await page.getByRole('button', { name: 'Log out' }).first().click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
  }
  const credentials = async () =>
    ((await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: unknown[] }).credentials;
  let authenticatorId = '';

  beforeAll(async () => {
    await rig.provision();
    acme = Number((await rig.cli('company:create', '--name', 'Acme Staffing')).id);
    beta = Number((await rig.cli('company:create', '--name', 'Beta Logistics')).id);
    await rig.cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Paula Passkey');
    for (const company of [acme, beta]) {
      await rig.cli('membership:add', '--email', owner, '--company', String(company), '--permissions', '*');
    }
    const port = await freePort();
    origin = `http://localhost:${port}`;
    await rig.start({ PORT: String(port), WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: origin });
    page = rig.page;
    cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = (await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    })) as { authenticatorId: string });
  }, 240_000);
  afterAll(() => rig.stop());

  it('adds a passkey on the Account screen', async () => {
    await page.goto(`${origin}/admin`);
    await page.getByLabel('E-mail').fill(owner);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Choose a company' }).waitFor();
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    await openTab('Account');
    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey “Work laptop” added.').waitFor();
    await page.getByRole('list', { name: 'Your passkeys' }).getByText('Work laptop').waitFor();
    expect(await credentials()).toHaveLength(1);
    await page.getByRole('heading', { name: 'Passkeys' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${DOCS}/admin-passkeys.png`, fullPage: true });
  });

  it('signs in with the passkey and a chosen company, no password asked', async () => {
    await logOutToLogin();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    await page.screenshot({ path: `${DOCS}/admin-passkey-login.png` });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Choose a company' }).waitFor();
    await page.getByLabel('Beta Logistics').check();
    await page.getByRole('button', { name: 'Log in' }).click();
    // The page returns to the screen it was on (the Account screen, kept in the URL's hash).
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    expect(await storedCompany()).toBe(beta);
    await openTab('Home');
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    await openTab('Sessions');
    await page.getByText('This browser').waitFor();
  });

  it('asks for a fresh proof when an action needs one (here by passkey), then the action goes on by itself', async () => {
    await openTab('API keys');
    // The service's own refusal needs a 15-minute-old proof (test/step-up.e2e-spec.ts drives that with a manual
    // clock); here the first answer is that refusal, and what follows is real: the passkey proof, then the retry.
    await withStepUpRefusedOnce(page, '**/v1/apikeys', 'POST', async () => {
      await page.getByLabel('Name').fill('warehouse sync');
      await page.getByRole('checkbox', { name: /products:read/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
      await dialog.waitFor();
      await page.screenshot({ path: `${DOCS}/admin-step-up.png` });
      await dialog.getByRole('button', { name: 'Use a passkey' }).click();
      await dialog.waitFor({ state: 'detached' });
      // The key appears without a second click: the page repeated the request once the session was proven.
      await page.getByRole('textbox', { name: 'New API key' }).waitFor();
    });
    await openTab('Account');
  });

  it('removes the passkey: it no longer signs in', async () => {
    const list = page.getByRole('list', { name: 'Your passkeys' });
    await list.getByRole('button', { name: 'Remove passkey Work laptop' }).click();
    await list.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Passkey “Work laptop” removed.').waitFor();
    await page.getByText('You have no passkeys yet.').waitFor();
    await logOutToLogin();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText(/not registered here/).waitFor();
    expect(await storedCompany()).toBeNull();
  });
});
