import { ManualClock } from './support/manual-clock';
import { type Account, createAccount, createCompanies } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

describe('two-step login', () => {
  let t: TestApp;
  let clock: ManualClock;
  let account: Account;
  let companyA: { id: number; name: string };
  let companyB: { id: number; name: string };
  let outsider: { id: number; name: string };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [companyA, companyB, outsider] = await createCompanies(t, 'Alpha', 'Beta', 'Gamma');
    account = await createAccount(t, [companyA.id, companyB.id]);
  });
  afterAll(() => t.close());

  it('authenticateinit lists the companies the account belongs to', async () => {
    const res = await t
      .http()
      .post('/v1/users/authenticateinit')
      .send({ email: account.email.toUpperCase(), password: account.password })
      .expect(200);
    expect(res.body).toEqual({
      companies: [
        { id: companyA.id, name: 'Alpha', sso: false },
        { id: companyB.id, name: 'Beta', sso: false },
      ],
      otp_required: false,
    });
  });

  it('authenticatefinish returns the login result bound to the chosen company', async () => {
    const res = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: companyB.id })
      .expect(200);
    expect(res.body).toEqual({
      jwt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refresh_token: expect.any(String),
      expires_at: '2026-12-05T23:59:59+07:00',
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      company: { id: companyB.id, name: 'Beta' },
      employee: { id: account.id, email: account.email, name: expect.any(String) },
    });
    const me = await t.http().get('/v1/users/me').set('authorization', res.body.jwt).expect(200);
    expect(me.body).toEqual({
      employee: { id: account.id, email: account.email, name: expect.any(String) },
      company: { id: companyB.id, name: 'Beta' },
      permissions: ['*'],
      roles: [],
      credential: 'jwt',
      session_id: res.body.session_id,
      mfa: { totp: false, passkeys: 0 },
    });
  });

  it('refuses a company the account does not belong to with 403 error_company_not_member', async () => {
    const res = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: outsider.id })
      .expect(403);
    expect(res.body).toEqual({ error: ['error_company_not_member'], message: expect.any(String) });
  });

  it.each([
    ['a wrong password', (a: Account) => ({ email: a.email, password: 'wrong-password' })],
    ['an unknown e-mail', () => ({ email: 'nobody@example.test', password: 'whatever-it-is' })],
  ])('answers %s the same way: 401 error_invalid_credentials', async (_label, body) => {
    for (const path of ['authenticateinit', 'authenticatefinish']) {
      const res = await t
        .http()
        .post(`/v1/users/${path}`)
        .send(path === 'authenticatefinish' ? { ...body(account), company_id: companyA.id } : body(account))
        .expect(401);
      expect(res.body).toEqual({ error: ['error_invalid_credentials'], message: 'The e-mail or password is wrong.' });
    }
  });

  it.each([
    [{ password: 'x', company_id: 1 }, 'email', 'email is required'],
    [{ email: 'a@b.c', company_id: 1 }, 'password', 'password is required'],
    [{ email: 'a@b.c', password: 'x', company_id: '1' }, 'company_id', 'company_id must be an integer number'],
    [{ email: 'a@b.c', password: 'x', company_id: 0 }, 'company_id', 'company_id must not be less than 1'],
    [
      { email: 'a@b.c', password: 'x', company_id: 2_147_483_648 },
      'company_id',
      'company_id must not be greater than 2147483647',
    ],
    [
      { email: 'a@b.c', password: 'x', company_id: Number.MAX_VALUE },
      'company_id',
      'company_id must not be greater than 2147483647',
    ],
    [{ email: 'a@b.c', password: '', company_id: 1 }, 'password', 'password should not be empty'],
  ])('validates the login body %p: one message for %s, the first rule it broke', async (body, field, message) => {
    const res = await t.http().post('/v1/users/authenticatefinish').send(body).expect(400);
    expect(res.body).toEqual({ error: ['error_validation'], message, details: [{ field, message }] });
  });

  it('names every missing field of an empty login body once', async () => {
    const res = await t.http().post('/v1/users/authenticatefinish').send({}).expect(400);
    expect(res.body.details).toEqual([
      { field: 'email', message: 'email is required' },
      { field: 'password', message: 'password is required' },
      { field: 'company_id', message: 'company_id is required' },
    ]);
  });

  it('locks an e-mail for 15 minutes after 10 failed logins, whether or not it exists', async () => {
    const victim = await createAccount(t, [companyA.id]);
    for (const email of [victim.email, 'ghost@example.test']) {
      for (let i = 0; i < 10; i++) {
        await t.http().post('/v1/users/authenticateinit').send({ email, password: 'wrong-guess' }).expect(401);
      }
      const locked = await t
        .http()
        .post('/v1/users/authenticateinit')
        .send({ email, password: email === victim.email ? victim.password : 'wrong-guess' })
        .expect(429);
      expect(locked.body).toEqual({ error: ['error_rate_limit_exceed'], message: expect.any(String) });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(900);
    }
    clock.advance(15 * 60 * 1000 + 1000);
    await t
      .http()
      .post('/v1/users/authenticateinit')
      .send({ email: victim.email, password: victim.password })
      .expect(200);
  });

  it('never logs a password', () => {
    expect(t.logs.text).not.toContain(account.password);
    expect(t.logs.text).not.toContain('wrong-guess');
  });
});
