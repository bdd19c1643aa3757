import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { browserAvailable } from './support/browser';
import { AdminPageRig } from './support/admin-page-rig';
import type { RunningService } from './support/processes';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(90_000);

const PASSWORD = 'a-long-enough-password';
const run = browserAvailable() ? describe : describe.skip;

/** The Activity screen of /admin manages the company's security-event streams. */
run('the administration page: event streams on Activity, in Chromium', () => {
  const rig = new AdminPageRig();
  const receiver = new WebhookReceiver();
  let service: RunningService;
  let page: Page;
  let acme = 0;
  const owner = 'owner@streams.example';

  const streams = () => page.getByRole('list', { name: 'Streams' }).locator(':scope > li');

  beforeAll(async () => {
    await receiver.start();
    await rig.provision();
    acme = Number((await rig.cli('company:create', '--name', 'Streams Trading')).id);
    await rig.cli('employee:create', '--email', owner, '--password', PASSWORD, '--name', 'Olivia Owner');
    await rig.cli('membership:add', '--email', owner, '--company', String(acme), '--permissions', '*');
    await rig.start({ STREAMS_ALLOWLIST: '127.0.0.1', STREAMS_POLL_MS: '50' });
    ({ service, page } = rig);
  });
  afterAll(async () => {
    await rig.stop();
    await receiver.close();
  });

  it('adds a stream (secret shown once), lists it with its state and deliveries, and removes it', async () => {
    await page.goto(`${service.url}/admin`);
    await page.getByLabel('E-mail').fill(owner);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your token' }).waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Event streams' }).waitFor();
    await page.getByText('No stream yet.').waitFor();

    // A private address is refused with the service's message.
    await page.getByLabel('Receiver URL').fill('http://10.0.0.1/hook');
    await page.getByRole('button', { name: 'Add stream' }).click();
    await page.getByRole('alert').filter({ hasText: 'public internet addresses' }).waitFor();

    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add stream' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await streams().first().waitFor();
    expect(await streams().first().locator('.row-title').textContent()).toBe(receiver.url);
    expect(await streams().first().locator('[data-state]').textContent()).toBe('Active');

    // An event of the company (a login) reaches the receiver, signed with that secret.
    const login = await fetch(`${service.url}/v1/users/authenticatefinish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner, password: PASSWORD, company_id: acme }),
    });
    expect(login.status).toBe(200);
    await receiver.waitFor(() => receiver.accepted.length >= 1, 15_000, 'a delivery');
    const delivered = receiver.accepted[0];
    const verified = new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: 'login.succeeded', data: { company_id: acme } });

    await streams().first().getByRole('button', { name: 'Show deliveries' }).click();
    const deliveries = page.getByRole('list', { name: `Deliveries to ${receiver.url}` }).locator(':scope > li');
    await deliveries.first().waitFor();
    expect(await deliveries.first().getAttribute('data-outcome')).toBe('delivered');
    expect(await deliveries.first().locator('.row-title').textContent()).toMatch(/^Delivered event \d+ \(HTTP 200\)$/);

    // Shown once: after a reload the secret is gone from the page.
    await page.reload();
    await page.getByRole('heading', { name: 'Event streams' }).waitFor();
    await streams().first().waitFor();
    expect(await page.content()).not.toContain(secret);

    await streams()
      .first()
      .getByRole('button', { name: `Remove the stream to ${receiver.url}` })
      .click();
    await streams().first().getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('No stream yet.').waitFor();
  });
});
