import { DataSource } from 'typeorm';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { auditRows } from './support/audit-rows';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/** TOTP (RFC 6238): enrolment, confirmation, the second factor at login, recovery codes, disable, admin reset. */
describe('TOTP', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let owner: Account;
  let ownerJwt: string;

  const codeNow = (secret: string, offsetSteps = 0) => totpCodeAt(secret, clock.nowMs() + offsetSteps * 30_000);
  const init = (account: Account) =>
    t.http().post('/v1/users/authenticateinit').send({ email: account.email, password: account.password });
  const finish = (account: Account, extra: object = {}) =>
    t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: alpha.id, ...extra });

  /** An account with TOTP on; answers its secret and recovery codes. */
  async function enrolled(): Promise<{ account: Account; jwt: string; secret: string; recovery: string[] }> {
    const account = await createAccount(t, [alpha.id], ['users:read']);
    const jwt = (await login(t, account, alpha.id)).jwt;
    const started = await authed(t, jwt)
      .post('/v1/users/me/mfa/totp', { current_password: account.password })
      .expect(201);
    await authed(t, jwt)
      .post('/v1/users/me/mfa/totp/confirm', { otp: codeNow(started.body.secret) })
      .expect(204);
    clock.advance(30_000);
    return { account, jwt, secret: started.body.secret, recovery: started.body.recovery_codes };
  }

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [alpha] = await createCompanies(t, 'Alpha');
    owner = await createAccount(t, [alpha.id], ['*']);
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  it('enrolment answers the secret, the otpauth URI and 10 recovery codes once (no-store); the secret is stored sealed', async () => {
    const account = await createAccount(t, [alpha.id], []);
    const jwt = (await login(t, account, alpha.id)).jwt;
    const res = await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: account.password }).expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\/.*algorithm=SHA1&digits=6&period=30/),
      recovery_codes: expect.any(Array),
    });
    expect(res.body.otpauth_uri).toContain(`secret=${res.body.secret}`);
    expect(new Set(res.body.recovery_codes).size).toBe(10);
    const [row] = await t.app
      .get(DataSource)
      .query('SELECT totp_secret, totp_enabled_at FROM employee WHERE id = $1', [account.id]);
    expect(row.totp_enabled_at).toBeNull();
    expect(row.totp_secret).not.toContain(res.body.secret);
    const hashes = await t.app
      .get(DataSource)
      .query('SELECT code_hash FROM recovery_code WHERE employee_id = $1', [account.id]);
    expect(hashes).toHaveLength(10);
    expect(JSON.stringify(hashes)).not.toContain(res.body.recovery_codes[0]);
    // Not on until confirmed.
    expect((await init(account).expect(200)).body.otp_required).toBe(false);
    await finish(account).expect(200);
  });

  it('enrolment with a wrong password is 401 error_invalid_credentials', async () => {
    const account = await createAccount(t, [alpha.id], []);
    const jwt = (await login(t, account, alpha.id)).jwt;
    expectError(
      await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: 'wrong-password' }),
      401,
      'error_invalid_credentials',
    );
  });

  it('confirming with a wrong code is 401 error_otp_invalid and leaves TOTP off', async () => {
    const account = await createAccount(t, [alpha.id], []);
    const jwt = (await login(t, account, alpha.id)).jwt;
    const { secret } = (
      await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: account.password }).expect(201)
    ).body;
    expectError(
      await authed(t, jwt).post('/v1/users/me/mfa/totp/confirm', { otp: codeNow(secret, 3) }),
      401,
      'error_otp_invalid',
    );
    expectInvalid(await authed(t, jwt).post('/v1/users/me/mfa/totp/confirm', { otp: '12345' }), 'otp');
    expect((await init(account).expect(200)).body.otp_required).toBe(false);
  });

  it('confirming turns TOTP on, ends the other sessions, records mfa.enabled; the list shows mfa', async () => {
    const account = await createAccount(t, [alpha.id], []);
    const jwt = (await login(t, account, alpha.id)).jwt;
    const other = (await login(t, account, alpha.id)).jwt;
    const { secret } = (
      await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: account.password }).expect(201)
    ).body;
    await authed(t, jwt)
      .post('/v1/users/me/mfa/totp/confirm', { otp: codeNow(secret) })
      .expect(204);
    await authed(t, jwt).get('/v1/users/me').expect(200);
    expectError(await authed(t, other).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    expect(await auditRows(t, alpha.id, 'mfa.enabled')).toContainEqual(
      expect.objectContaining({ subject_id: String(account.id) }),
    );
    const listed = (await authed(t, ownerJwt).get(`/v1/users?mfa=true&per_page=100`).expect(200)).body.data;
    expect(listed.map((e: { id: number }) => e.id)).toContain(account.id);
  });

  describe('login with TOTP on', () => {
    it('authenticateinit says otp_required only after the right password', async () => {
      const { account } = await enrolled();
      expect((await init(account).expect(200)).body).toEqual({
        companies: [{ id: alpha.id, name: 'Alpha', sso: false }],
        otp_required: true,
      });
      expectError(
        await t.http().post('/v1/users/authenticateinit').send({ email: account.email, password: 'wrong-password' }),
        401,
        'error_invalid_credentials',
      );
    });

    it('without a code: 401 error_otp_required; with the current, previous or next step: a login, each code once', async () => {
      const { account, secret } = await enrolled();
      expectError(await finish(account), 401, 'error_otp_required');
      const now = codeNow(secret);
      const login1 = await finish(account, { otp: now }).expect(200);
      expect(login1.headers['cache-control']).toBe('no-store');
      // The same code again: refused (replay).
      expectError(await finish(account, { otp: now }), 401, 'error_otp_invalid');
      // The next step's code is accepted once (clock drift of one step).
      await finish(account, { otp: codeNow(secret, 1) }).expect(200);
      clock.advance(90_000);
      // The previous step's code is accepted (one step late).
      await finish(account, { otp: codeNow(secret, -1) }).expect(200);
      // Two steps off: refused.
      clock.advance(30_000);
      expectError(await finish(account, { otp: codeNow(secret, -2) }), 401, 'error_otp_invalid');
      expectError(await finish(account, { otp: codeNow(secret, 2) }), 401, 'error_otp_invalid');
      const failures = (await auditRows(t, alpha.id, 'login.failed')).filter(
        (e) => e.subject_id === String(account.id),
      );
      expect(failures.map((e) => e.details.reason)).toEqual([
        'otp_required',
        'otp_invalid',
        'otp_invalid',
        'otp_invalid',
      ]);
    });

    it('a recovery code works once, in any case and with or without dashes', async () => {
      const { account, recovery } = await enrolled();
      await finish(account, { recovery_code: recovery[0].toUpperCase().replace(/-/g, '') }).expect(200);
      expectError(await finish(account, { recovery_code: recovery[0] }), 401, 'error_otp_invalid');
      await finish(account, { recovery_code: recovery[1] }).expect(200);
      expectError(await finish(account, { recovery_code: 'aaaa-bbbb-cccc-dddd' }), 401, 'error_otp_invalid');
    });

    it('wrong codes count toward the login lock, and a right password does not clear the count', async () => {
      const { account, secret } = await enrolled();
      for (let i = 0; i < 10; i++) {
        expectError(await finish(account, { otp: codeNow(secret, 5) }), 401, 'error_otp_invalid');
      }
      expectError(await finish(account, { otp: codeNow(secret) }), 429, 'error_rate_limit_exceed');
      clock.advance(15 * 60 * 1000 + 1000);
      await finish(account, { otp: codeNow(secret) }).expect(200);
    });

    it('refresh and company switch ask for no code', async () => {
      const { account, secret } = await enrolled();
      const first = (await finish(account, { otp: codeNow(secret) }).expect(200)).body;
      await t.http().post('/v1/users/refreshtoken').send({ refresh_token: first.refresh_token }).expect(200);
    });
  });

  describe('turning it off', () => {
    it('disable needs the password and a current code; records mfa.disabled', async () => {
      const { account, jwt, secret } = await enrolled();
      expectError(
        await authed(t, jwt).post('/v1/users/me/mfa/totp/disable', {
          current_password: 'wrong-pw',
          otp: codeNow(secret),
        }),
        401,
        'error_invalid_credentials',
      );
      expectError(
        await authed(t, jwt).post('/v1/users/me/mfa/totp/disable', {
          current_password: account.password,
          otp: codeNow(secret, 4),
        }),
        401,
        'error_otp_invalid',
      );
      expect((await init(account).expect(200)).body.otp_required).toBe(true);
      await authed(t, jwt)
        .post('/v1/users/me/mfa/totp/disable', { current_password: account.password, otp: codeNow(secret) })
        .expect(204);
      expect((await init(account).expect(200)).body.otp_required).toBe(false);
      await finish(account).expect(200);
      expect(await auditRows(t, alpha.id, 'mfa.disabled')).toContainEqual(
        expect.objectContaining({ subject_id: String(account.id), details: { by: 'self' } }),
      );
    });

    it('an administrator can reset it (same conditions as a password reset)', async () => {
      const { account } = await enrolled();
      const manager = await createAccount(t, [alpha.id], ['users:write']);
      const managerJwt = (await login(t, manager, alpha.id)).jwt;
      // The employee holds users:read, which the manager lacks.
      expectError(
        await authed(t, managerJwt).post(`/v1/users/${account.id}/mfa/reset`),
        403,
        'error_permission_denied',
      );
      expect((await init(account).expect(200)).body.otp_required).toBe(true);
      // A step-up action: the suite's own login is long past, so the owner signs in again.
      const freshJwt = (await login(t, owner, alpha.id)).jwt;
      expectError(await authed(t, freshJwt).post('/v1/users/987654/mfa/reset'), 404, 'error_not_found');
      await authed(t, freshJwt).post(`/v1/users/${account.id}/mfa/reset`).expect(204);
      expect((await init(account).expect(200)).body.otp_required).toBe(false);
      expect(await auditRows(t, alpha.id, 'mfa.disabled')).toContainEqual(
        expect.objectContaining({ actor_id: String(owner.id), subject_id: String(account.id) }),
      );
    });
  });

  it('no secret, code or recovery code reaches an event or a log line', async () => {
    const { account, secret, recovery } = await enrolled();
    const otp = codeNow(secret);
    await finish(account, { otp }).expect(200);
    await finish(account, { recovery_code: recovery[2] }).expect(200);
    const events = JSON.stringify(await auditRows(t, alpha.id));
    const logged = t.logs.lines.join('\n');
    for (const text of [events, logged]) {
      expect(text).not.toContain(secret);
      for (const code of recovery) expect(text).not.toContain(code);
    }
    expect(logged).not.toContain(`"${otp}"`);
  });
});
