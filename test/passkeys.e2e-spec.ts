import { AppMetrics } from '../src/platform/common/metrics/app-metrics';
import { auditRows } from './support/audit-rows';
import { expectError } from './support/expectations';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';
import { SoftAuthenticator } from './support/webauthn';

const ORIGIN = 'https://staff.example.test';
const RP_ID = 'staff.example.test';
const MINUTE = 60_000;

/**
 * Passkeys (docs/contract.md, Passkeys and step-up) with credentials built in the test (ES256 and Ed25519, `none`
 * attestation; test/support/webauthn.ts), so the server's real WebAuthn verification is what is exercised.
 */
describe('passkeys', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let beta: { id: number };

  const authenticator = (algorithm: 'ES256' | 'Ed25519' = 'ES256') =>
    new SoftAuthenticator(algorithm, { origin: ORIGIN, rpId: RP_ID });

  /** Adds a passkey to the account of `jwt` (a fresh login, so the step-up passes). */
  async function register(jwt: string, key: SoftAuthenticator, name = 'Laptop') {
    const options = (await authed(t, jwt).post('/v1/users/me/passkeys/options').expect(200)).body;
    return authed(t, jwt).post('/v1/users/me/passkeys', { name, response: key.register(options) });
  }

  const loginOptions = async () => (await t.http().post('/v1/users/passkeys/options').expect(200)).body;
  const authenticate = (challenge_id: string, response: object) =>
    t.http().post('/v1/users/passkeys/authenticate').send({ challenge_id, response });
  const finish = (login_ticket: string, company_id: number) =>
    t.http().post('/v1/users/authenticatefinish').send({ login_ticket, company_id });

  /** Step 1 of a passkey login with `key`, as a browser runs it. */
  async function signIn(key: SoftAuthenticator, ceremony: Parameters<SoftAuthenticator['assert']>[1] = {}) {
    const { challenge_id, options } = await loginOptions();
    return authenticate(challenge_id, key.assert(options.challenge, ceremony));
  }

  const ok = async (pending: Promise<{ status: number; body: any }>) => {
    const res = await pending;
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };

  /** An account in Alpha (and Beta) with one registered passkey. */
  async function withPasskey(algorithm: 'ES256' | 'Ed25519' = 'ES256') {
    const account = await createAccount(t, [alpha.id, beta.id], ['apikeys:manage']);
    const { jwt } = await login(t, account, alpha.id);
    const key = authenticator(algorithm);
    const res = await register(jwt, key);
    if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
    const added = res.body;
    return { account, jwt, key, passkeyId: added.id as string };
  }

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T03:00:00Z');
    t = await startTestApp({
      clock,
      env: { WEBAUTHN_RP_ID: RP_ID, WEBAUTHN_ORIGINS: ORIGIN, SSO_INSECURE_ISSUERS: '127.0.0.1' },
    });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
  });
  afterAll(() => t?.close());

  it.each(['ES256', 'Ed25519'] as const)(
    '%s: register, list, sign in without TOTP, pick a company: a passkey session, counted and recorded',
    async (algorithm) => {
      const { account, jwt, key, passkeyId } = await withPasskey(algorithm);
      const listed = (await authed(t, jwt).get('/v1/users/me/passkeys').expect(200)).body;
      expect(listed).toEqual({
        passkeys: [{ id: passkeyId, name: 'Laptop', created_at: clock.now().toISOString(), last_used_at: null }],
      });
      expect((await authed(t, jwt).get('/v1/users/me').expect(200)).body.mfa).toEqual({ totp: false, passkeys: 1 });

      const step1 = (await ok(signIn(key))).body;
      expect(step1).toEqual({
        companies: expect.arrayContaining([
          { id: alpha.id, name: 'Alpha' },
          { id: beta.id, name: 'Beta' },
        ]),
        login_ticket: expect.any(String),
      });
      const session = (await finish(step1.login_ticket, beta.id).expect(200)).body;
      expect(session.company.id).toBe(beta.id);
      const sessions = (await authed(t, session.jwt).get('/v1/users/sessions').expect(200)).body.sessions;
      expect(sessions.find((s: { current: boolean }) => s.current).method).toBe('passkey');
      const used = (await authed(t, jwt).get('/v1/users/me/passkeys').expect(200)).body.passkeys[0];
      expect(used.last_used_at).toBe(clock.now().toISOString());

      const succeeded = await auditRows(t, beta.id, 'login.succeeded');
      expect(succeeded.at(-1)).toMatchObject({ actor_id: String(account.id), details: { method: 'passkey' } });
      const added = await auditRows(t, alpha.id, 'passkey.added');
      expect(added.at(-1)).toMatchObject({ subject_id: String(account.id), details: { passkey_id: passkeyId } });
      const metrics = await t.app.get(AppMetrics).scrape();
      expect(metrics).toMatch(/^auth_logins_total\{outcome="success",method="passkey"\} [1-9]/m);
    },
  );

  it('adding a passkey is a step-up action; removing one stops it signing in', async () => {
    const { account, jwt, key, passkeyId } = await withPasskey();
    clock.advance(16 * MINUTE);
    expectError(await authed(t, jwt).post('/v1/users/me/passkeys/options'), 401, 'error_reauthentication_required');
    await authed(t, jwt).delete(`/v1/users/me/passkeys/${passkeyId}`).expect(204);
    expectError(await authed(t, jwt).delete(`/v1/users/me/passkeys/${passkeyId}`), 404, 'error_not_found');
    expect((await authed(t, jwt).get('/v1/users/me').expect(200)).body.mfa.passkeys).toBe(0);
    expectError(await signIn(key), 401, 'error_invalid_credentials');
    expect((await auditRows(t, alpha.id, 'passkey.removed')).at(-1)).toMatchObject({
      subject_id: String(account.id),
      details: { passkey_id: passkeyId, name: 'Laptop' },
    });
  });

  it('a wrong origin or RP ID, or no user verification, is refused at registration (400) and at sign-in (401)', async () => {
    const account = await createAccount(t, [alpha.id], []);
    const { jwt } = await login(t, account, alpha.id);
    for (const ceremony of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }]) {
      const options = (await authed(t, jwt).post('/v1/users/me/passkeys/options').expect(200)).body;
      const res = await authed(t, jwt).post('/v1/users/me/passkeys', {
        name: 'k',
        response: authenticator().register(options, ceremony),
      });
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: ['error_validation'] });
    }
    const { key } = await withPasskey();
    for (const ceremony of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }]) {
      expectError(await signIn(key, ceremony), 401, 'error_invalid_credentials');
    }
    await ok(signIn(key));
  });

  it('a challenge works once and for 5 minutes; a registration response needs open creation options', async () => {
    const { jwt, key } = await withPasskey();
    const { challenge_id, options } = await loginOptions();
    await authenticate(challenge_id, key.assert(options.challenge)).expect(200);
    expectError(await authenticate(challenge_id, key.assert(options.challenge)), 400, 'error_login_ticket_invalid');
    const late = await loginOptions();
    clock.advance(5 * MINUTE + 1000);
    expectError(
      await authenticate(late.challenge_id, key.assert(late.options.challenge)),
      400,
      'error_login_ticket_invalid',
    );
    expectError(
      await authenticate('00000000-0000-4000-8000-000000000000', key.assert(late.options.challenge)),
      400,
      'error_login_ticket_invalid',
    );
    const fresh = (await login(t, (await withPasskey()).account, alpha.id)).jwt;
    const creation = (await authed(t, fresh).post('/v1/users/me/passkeys/options').expect(200)).body;
    const response = authenticator().register(creation);
    await authed(t, fresh).post('/v1/users/me/passkeys', { name: 'k', response }).expect(201);
    expectError(
      await authed(t, fresh).post('/v1/users/me/passkeys', { name: 'k', response }),
      400,
      'error_login_ticket_invalid',
    );
    // Creation options of another account do not open a registration for this one.
    expectError(
      await authed(t, jwt).post('/v1/users/me/passkeys', { name: 'k', response: authenticator().register(creation) }),
      400,
      'error_login_ticket_invalid',
    );
  });

  it('a signature counter that goes backwards (a cloned authenticator) is refused', async () => {
    const { key } = await withPasskey();
    await ok(signIn(key, { counter: 5 }));
    expectError(await signIn(key, { counter: 5 }), 401, 'error_invalid_credentials');
    expectError(await signIn(key, { counter: 3 }), 401, 'error_invalid_credentials');
    await ok(signIn(key, { counter: 6 }));
  });

  it('a login_ticket works once, within 60 seconds, for a company of the account', async () => {
    const { key } = await withPasskey();
    const first = (await ok(signIn(key))).body.login_ticket;
    await finish(first, alpha.id).expect(200);
    expectError(await finish(first, alpha.id), 400, 'error_login_ticket_invalid');
    const late = (await ok(signIn(key))).body.login_ticket;
    clock.advance(61_000);
    expectError(await finish(late, alpha.id), 400, 'error_login_ticket_invalid');
    const [other] = await createCompanies(t, 'Other');
    const elsewhere = (await ok(signIn(key))).body.login_ticket;
    expectError(await finish(elsewhere, other.id), 403, 'error_company_not_member');
    expectError(await finish('made-up', alpha.id), 400, 'error_login_ticket_invalid');
    const mixed = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ login_ticket: first, company_id: alpha.id, email: 'a@b.test' });
    expect(mixed.status).toBe(400);
  });

  it('failures count toward the account’s login lock: 10 refuse even the right passkey and the password', async () => {
    const { account, key } = await withPasskey();
    for (let i = 0; i < 10; i++)
      expectError(await signIn(key, { userVerified: false }), 401, 'error_invalid_credentials');
    expectError(await signIn(key), 429, 'error_rate_limit_exceed');
    expectError(
      await t.http().post('/v1/users/authenticateinit').send({ email: account.email, password: account.password }),
      429,
      'error_rate_limit_exceed',
    );
    const failed = (await auditRows(t, alpha.id, 'login.failed')).filter((r) => r.subject_id === String(account.id));
    expect(failed.filter((r) => r.details.reason === 'passkey_invalid')).toHaveLength(10);
  });

  it('reauthenticate with a passkey: one’s own admits the step-up routes, another account’s is refused', async () => {
    const mine = await withPasskey('Ed25519');
    const theirs = await withPasskey();
    clock.advance(16 * MINUTE);
    const createKey = () => authed(t, mine.jwt).post('/v1/apikeys', { name: 'k', permissions: ['apikeys:manage'] });
    expectError(await createKey(), 401, 'error_reauthentication_required');
    const reauth = async (key: SoftAuthenticator) => {
      const { challenge_id, options } = await loginOptions();
      return authed(t, mine.jwt).post('/v1/users/me/reauthenticate', {
        challenge_id,
        response: key.assert(options.challenge),
      });
    };
    expectError(await reauth(theirs.key), 401, 'error_invalid_credentials');
    expectError(await createKey(), 401, 'error_reauthentication_required');
    expect((await reauth(mine.key)).status).toBe(204);
    await createKey().expect(201);
    const events = await auditRows(t, alpha.id, 'session.reauthenticated');
    expect(events.at(-1)).toMatchObject({ actor_id: String(mine.account.id), details: { method: 'passkey' } });
  });

  it('a passkey of another account is refused: its user handle must be the one it was registered with', async () => {
    const victim = await withPasskey();
    const { key } = await withPasskey();
    // The attacker's authenticator claims the victim's account.
    key.userHandle = victim.key.userHandle;
    expectError(await signIn(key), 401, 'error_invalid_credentials');
  });

  it('a company that signs its staff in through its provider refuses a passkey login (403 error_sso_required)', async () => {
    const idp = new JoseIdp('staff-auth');
    await idp.start();
    const admin = await createAccount(t, [beta.id], ['*']);
    const adminJwt = (await login(t, admin, beta.id)).jwt;
    try {
      await authed(t, adminJwt)
        .put('/v1/sso/connection', {
          issuer: idp.issuer,
          client_id: 'staff-auth',
          client_secret: 'a-client-secret-of-the-test',
          email_domains: ['beta-sso.example'],
          enforced: true,
          jit: { enabled: false, permissions: [] },
        })
        .expect(200);
      const { account, key } = await withPasskey();
      const refused = await finish((await ok(signIn(key))).body.login_ticket, beta.id);
      expectError(refused, 403, 'error_sso_required');
      const failures = await auditRows(t, beta.id, 'login.failed');
      expect(failures.at(-1)).toMatchObject({ subject_id: String(account.id), details: { reason: 'sso_required' } });
      // The same passkey still signs in where the company does not enforce it.
      await finish((await ok(signIn(key))).body.login_ticket, alpha.id).expect(200);
    } finally {
      await authed(t, adminJwt).delete('/v1/sso/connection');
      await idp.stop();
    }
  });
});
