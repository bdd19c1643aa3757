import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { Webhook } from 'standardwebhooks';
import { SsoSecretBox, StreamSecretBox, TotpSecretBox } from '../src/platform/keys/secret-boxes';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/**
 * docs/contract.md "Other systems plug in": ENCRYPTION_KEY gives the stored TOTP secrets a key of their own;
 * setting it re-encrypts what is stored, at start, once, whichever instance gets there (two instances at once:
 * encryption-key.two-instances.postgres-only.e2e-spec.ts, the embedded database admitting one process).
 */
describe('ENCRYPTION_KEY re-encrypts the stored TOTP, SSO client and event-stream secrets at start', () => {
  let database: ProvisionedDatabase;
  let t: TestApp | undefined;
  const clock = new ManualClock('2026-11-25T09:00:00Z');

  const stored = async (app: TestApp, id: number): Promise<string> =>
    (await app.app.get(DataSource).query('SELECT totp_secret FROM employee WHERE id = $1', [id]))[0].totp_secret;

  async function restart(env: Record<string, string> = {}): Promise<TestApp> {
    await t?.close();
    t = await startTestApp({ database, clock, env });
    return t;
  }

  beforeAll(async () => {
    database = await provisionDatabase();
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('before: derived from JWT_SECRET; after: under ENCRYPTION_KEY, the old value gone, the code still verifies', async () => {
    let app = await restart();
    const [company] = await createCompanies(app, 'Alpha');
    const account: Account = await createAccount(app, [company.id], ['users:read']);
    const jwt = (await login(app, account, company.id)).jwt;
    const enrolled = await authed(app, jwt)
      .post('/v1/users/me/mfa/totp', { current_password: account.password })
      .expect(201);
    const secret: string = enrolled.body.secret;
    await authed(app, jwt)
      .post('/v1/users/me/mfa/totp/confirm', { otp: totpCodeAt(secret, clock.nowMs()) })
      .expect(204);
    const before = await stored(app, account.id);
    expect(before).toMatch(/^v1\.[0-9a-f]{12}\./);

    app = await restart({ ENCRYPTION_KEY });
    const after = await stored(app, account.id);
    expect(after.startsWith(app.app.get(TotpSecretBox).currentPrefix)).toBe(true);
    expect(after).toMatch(/^v1\.e[0-9a-f]{11}\./);
    expect(after).not.toContain(before.split('.')[3]);
    expect(app.logs.text).toContain('stored secrets sealed with the new key');

    clock.advance(60_000);
    const finish = (otp: string) =>
      app
        .http()
        .post('/v1/users/authenticatefinish')
        .send({ email: account.email, password: account.password, company_id: company.id, otp });
    await finish(totpCodeAt(secret, clock.nowMs())).expect(200);

    // Idempotent: another start with the same key changes nothing.
    clock.advance(60_000);
    const settled = await stored(app, account.id);
    app = await restart({ ENCRYPTION_KEY });
    expect(await stored(app, account.id)).toBe(settled);
    expect(app.logs.text).not.toContain('stored secrets sealed with the new key');
    await finish(totpCodeAt(secret, clock.nowMs())).expect(200);
  });

  it("the SSO client secrets too: re-sealed under ENCRYPTION_KEY's own SSO key, still opened to call the provider", async () => {
    const idp = new JoseIdp('staff-auth');
    await idp.start();
    try {
      let app = await restart({ SSO_INSECURE_ISSUERS: '127.0.0.1' });
      const [company] = await createCompanies(app, 'Sso Co');
      const admin = await createAccount(app, [company.id], ['*']);
      const jwt = (await login(app, admin, company.id)).jwt;
      await authed(app, jwt)
        .put('/v1/sso/connection', {
          issuer: idp.issuer,
          client_id: 'staff-auth',
          client_secret: 'the-client-secret',
          email_domains: ['sso-co.example'],
          enforced: false,
          jit: { enabled: false, permissions: [] },
        })
        .expect(200);
      const secretOf = async (on: TestApp): Promise<string> =>
        (
          await on.app
            .get(DataSource)
            .query('SELECT client_secret FROM sso_connection WHERE company_id = $1', [company.id])
        )[0].client_secret;
      const before = await secretOf(app);
      expect(before).toMatch(/^v1\.[0-9a-f]{12}\./);

      app = await restart({ ENCRYPTION_KEY, SSO_INSECURE_ISSUERS: '127.0.0.1' });
      const after = await secretOf(app);
      const box = app.app.get(SsoSecretBox);
      expect(after.startsWith(box.currentPrefix)).toBe(true);
      // Its own key, not the TOTP secrets' one.
      expect(box.currentPrefix).not.toBe(app.app.get(TotpSecretBox).currentPrefix);
      expect(after).not.toContain(before.split('.')[3]);
      expect(box.open(after)).toEqual({ plain: 'the-client-secret', stale: false });
    } finally {
      await idp.stop();
    }
  });

  it('event-stream signing secrets: stored sealed, the clear ones of before sealed at start, deliveries still verify', async () => {
    const receivers = [await new WebhookReceiver().start(), await new WebhookReceiver().start()];
    const streams = { STREAMS_ALLOWLIST: '127.0.0.1', STREAMS_POLL_MS: '50' };
    try {
      let app = await restart(streams);
      const [company] = await createCompanies(app, 'Streams Co');
      const reader = await createAccount(app, [company.id], ['auditevents:read']);
      const jwt = (await login(app, reader, company.id)).jwt;
      const created = [];
      for (const receiver of receivers) {
        created.push(
          (await authed(app, jwt).post('/v1/auditevents/streams', { url: receiver.url }).expect(201)).body as {
            id: string;
            secret: string;
          },
        );
      }
      const secretOf = async (on: TestApp, id: string): Promise<string> =>
        (await on.app.get(DataSource).query('SELECT secret FROM event_stream WHERE id = $1', [id]))[0].secret;
      // Sealed from the start: the row holds neither the secret nor its key bytes.
      const sealed = await secretOf(app, created[0].id);
      expect(sealed.startsWith(app.app.get(StreamSecretBox).currentPrefix)).toBe(true);
      expect(sealed).not.toContain(created[0].secret.slice(6));
      // A stream of an instance from before secrets were sealed: its secret as given out.
      await app.app
        .get(DataSource)
        .query('UPDATE event_stream SET secret = $2 WHERE id = $1', [created[1].id, created[1].secret]);

      app = await restart({ ENCRYPTION_KEY, ...streams });
      const box = app.app.get(StreamSecretBox);
      expect(box.currentPrefix).not.toBe(app.app.get(SsoSecretBox).currentPrefix);
      expect(box.currentPrefix).not.toBe(app.app.get(TotpSecretBox).currentPrefix);
      for (const stream of created) {
        const now = await secretOf(app, stream.id);
        expect(now.startsWith(box.currentPrefix)).toBe(true);
        expect(box.open(now)?.plain).toBe(stream.secret);
      }
      expect(app.logs.text).toMatch(/"column":"event_stream.secret","resealed":2/);

      // Deliveries are signed with the secret each stream was given out with.
      await login(app, reader, company.id);
      for (const [index, receiver] of receivers.entries()) {
        await receiver.waitFor(
          () => receiver.accepted.some((r) => r.body.includes('login.succeeded')),
          5000,
          'a delivery',
        );
        const delivery = receiver.accepted.find((r) => r.body.includes('login.succeeded'))!;
        // Signed as Standard Webhooks says, with this stream's secret (the test clock is days behind, so the
        // signature is recomputed rather than passed through verify()'s freshness check).
        const [id, timestamp] = [String(delivery.headers['webhook-id']), Number(delivery.headers['webhook-timestamp'])];
        const expected = new Webhook(created[index].secret).sign(id, new Date(timestamp * 1000), delivery.body);
        expect(String(delivery.headers['webhook-signature']).split(' ')).toContain(expected);
      }
    } finally {
      for (const receiver of receivers) await receiver.close();
    }
  });
});
