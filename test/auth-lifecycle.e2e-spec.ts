import { ManualClock } from './support/manual-clock';
import { type Account, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError, expectInvalid } from './support/expectations';

const DAY = 24 * 60 * 60 * 1000;

/** Every state transition of the source's section 3, with time moved by the injected clock. */
describe('token lifecycle', () => {
  let t: TestApp;
  let clock: ManualClock;
  let account: Account;
  let alpha: { id: number };
  let beta: { id: number };

  const me = (jwt: string) => t.http().get('/v1/users/me').set('authorization', jwt);
  const refresh = (refreshToken: string) =>
    t.http().post('/v1/users/refreshtoken').send({ refresh_token: refreshToken });

  beforeAll(async () => {
    clock = new ManualClock();
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    account = await createAccount(t, [alpha.id, beta.id]);
  });
  afterAll(() => t.close());

  describe('expiry at 23:59:59 Vietnam time at the end of day 14', () => {
    it.each([
      ['10:00 Vietnam time', '2026-11-21T03:00:00Z', '2026-12-05'],
      ['03:30 Vietnam time, when the UTC date is still the day before', '2026-11-20T20:30:00Z', '2026-12-05'],
      ['00:00:00 Vietnam time', '2026-11-20T17:00:00Z', '2026-12-05'],
      ['23:59:59 Vietnam time', '2026-11-21T16:59:59Z', '2026-12-05'],
    ])('login at %s: valid at 23:59:58, expired at 23:59:59 on %s', async (_label, loginAt, lastDay) => {
      clock.set(loginAt);
      const session = await login(t, account, alpha.id);
      expect(session.expires_at).toBe(`${lastDay}T23:59:59+07:00`);

      clock.set(`${lastDay}T23:59:58+07:00`);
      await me(session.jwt).expect(200);
      clock.set(`${lastDay}T23:59:59+07:00`);
      expectError(await me(session.jwt), 400, 'error_jwt_expired');
    });
  });

  describe('refresh', () => {
    it('rotates: a new token works, the previous one is blacklisted, its refresh token is used up', async () => {
      clock.set('2026-11-01T03:00:00Z');
      const first = await login(t, account, alpha.id);
      clock.advance(2 * DAY);
      const res = await refresh(first.refresh_token).expect(200);
      expect(res.body.session_id).toBe(first.session_id);
      expect(res.body.company).toEqual({ id: alpha.id, name: 'Alpha' });
      expect(res.body.expires_at).toBe('2026-11-17T23:59:59+07:00');
      await me(res.body.jwt).expect(200);
      expectError(await me(first.jwt), 400, 'error_jwt_blacklisted');
      expectError(await refresh(first.refresh_token), 401, 'error_refresh_token_invalid');
    });

    it('works on day 29 and is refused with error_session_max_age on day 31', async () => {
      clock.set('2026-10-01T03:00:00Z');
      let current = await login(t, account, alpha.id);
      // Renew every 13 days so the token itself never expires; only the session's age can stop it.
      for (const day of [13, 26, 29]) {
        clock.set(new Date(Date.parse('2026-10-01T03:00:00Z') + day * DAY));
        current = (await refresh(current.refresh_token).expect(200)).body;
      }
      // A token renewed on day 29 is capped at login + 30 days.
      expect(current.expires_at).toBe('2026-10-31T10:00:00+07:00');
      clock.set(new Date(Date.parse('2026-10-01T03:00:00Z') + 31 * DAY));
      expectError(await refresh(current.refresh_token), 400, 'error_session_max_age');
    });

    it('checks the session age before the token expiry', async () => {
      clock.set('2026-09-01T03:00:00Z');
      const session = await login(t, account, alpha.id);
      clock.advance(40 * DAY); // both past 30 days and past the token's expiry
      expectError(await refresh(session.refresh_token), 400, 'error_session_max_age');
    });

    it('answers error_jwt_expired for a token past its expiry within the 30 days', async () => {
      clock.set('2026-09-01T03:00:00Z');
      const session = await login(t, account, alpha.id);
      clock.advance(16 * DAY);
      expectError(await refresh(session.refresh_token), 400, 'error_jwt_expired');
    });

    it('answers error_refresh_token_invalid for an unknown refresh token', async () => {
      expectError(await refresh('not-a-refresh-token'), 401, 'error_refresh_token_invalid');
    });

    it('answers a reuse within 10 s as invalid but keeps the session', async () => {
      clock.set('2026-11-10T03:00:00Z');
      const first = await login(t, account, alpha.id);
      const second = (await refresh(first.refresh_token).expect(200)).body;
      clock.advance(9_000);
      expectError(await refresh(first.refresh_token), 401, 'error_refresh_token_invalid');
      await me(second.jwt).expect(200);
    });

    it('ends the whole session when a used refresh token comes back after 10 s (theft detection)', async () => {
      clock.set('2026-11-10T03:00:00Z');
      const first = await login(t, account, alpha.id);
      const second = (await refresh(first.refresh_token).expect(200)).body;
      clock.advance(10_001);
      expectError(await refresh(first.refresh_token), 401, 'error_refresh_token_invalid');
      expectError(await me(second.jwt), 400, 'error_jwt_blacklisted');
      expectError(await refresh(second.refresh_token), 400, 'error_jwt_blacklisted');
    });

    it('lets exactly one of two concurrent refreshes win', async () => {
      clock.set('2026-11-10T03:00:00Z');
      const first = await login(t, account, alpha.id);
      const results = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    });
  });

  describe('logout, company switch and revocation blacklist the token', () => {
    beforeEach(() => clock.set('2026-11-21T03:00:00Z'));

    it('logout', async () => {
      const session = await login(t, account, alpha.id);
      await t.http().post('/v1/users/logout').set('authorization', session.jwt).expect(204);
      expectError(await me(session.jwt), 400, 'error_jwt_blacklisted');
      expectError(await refresh(session.refresh_token), 400, 'error_jwt_blacklisted');
    });

    it('working-company switch: same session, a token for the other company, the old one blacklisted', async () => {
      const session = await login(t, account, alpha.id);
      const res = await t
        .http()
        .post('/v1/users/changeworkingcompany')
        .set('authorization', session.jwt)
        .send({ company_id: beta.id })
        .expect(200);
      expect(res.body.session_id).toBe(session.session_id);
      expect(res.body.company).toEqual({ id: beta.id, name: 'Beta' });
      expect((await me(res.body.jwt).expect(200)).body.company.id).toBe(beta.id);
      expectError(await me(session.jwt), 400, 'error_jwt_blacklisted');
      expectError(await refresh(session.refresh_token), 400, 'error_jwt_blacklisted');
    });

    it("lists the account's companies for a switcher, the token's own marked current; API keys may not", async () => {
      const [outsider] = await createCompanies(t, 'Not Mine');
      const session = await login(t, account, beta.id);
      const res = await t.http().get('/v1/users/companies').set('authorization', session.jwt).expect(200);
      expect(res.body.companies).toEqual([
        { id: alpha.id, name: 'Alpha', current: false },
        { id: beta.id, name: 'Beta', current: true },
      ]);
      expect(res.body.companies.map((c: { id: number }) => c.id)).not.toContain(outsider.id);
      expectError(await t.http().get('/v1/users/companies'), 401, 'error_jwt_is_required');
    });

    it('switch to a company the account does not belong to: 403 error_company_not_member, token kept', async () => {
      const [other] = await createCompanies(t, 'Other');
      const session = await login(t, account, alpha.id);
      const res = await t
        .http()
        .post('/v1/users/changeworkingcompany')
        .set('authorization', session.jwt)
        .send({ company_id: other.id });
      expectError(res, 403, 'error_company_not_member');
      await me(session.jwt).expect(200);
    });

    it.each([0, 1.5, '2', 2_147_483_648, Number.MAX_VALUE])(
      'switch to company_id %p: 400 error_validation naming company_id, token kept',
      async (companyId) => {
        const session = await login(t, account, alpha.id);
        const res = await t
          .http()
          .post('/v1/users/changeworkingcompany')
          .set('authorization', session.jwt)
          .send({ company_id: companyId });
        expectInvalid(res, 'company_id');
        await me(session.jwt).expect(200);
      },
    );

    it('session revocation from the session list', async () => {
      const phone = await login(t, account, alpha.id);
      const laptop = await login(t, account, alpha.id);
      const list = await t.http().get('/v1/users/sessions').set('authorization', laptop.jwt).expect(200);
      const ids = list.body.sessions.map((s: { id: string }) => s.id);
      expect(ids).toEqual(expect.arrayContaining([phone.session_id, laptop.session_id]));
      const current = list.body.sessions.find((s: { current: boolean }) => s.current);
      expect(current.id).toBe(laptop.session_id);
      expect(current.method).toBe('password');

      await t.http().delete(`/v1/users/sessions/${phone.session_id}`).set('authorization', laptop.jwt).expect(204);
      expectError(await me(phone.jwt), 400, 'error_jwt_blacklisted');
      await me(laptop.jwt).expect(200);
    });

    it("cannot revoke another employee's session (404) or a malformed id (404)", async () => {
      const stranger = await createAccount(t, [alpha.id]);
      const theirs = await login(t, stranger, alpha.id);
      const mine = await login(t, account, alpha.id);
      for (const id of [theirs.session_id, 'not-a-uuid']) {
        expectError(
          await t.http().delete(`/v1/users/sessions/${id}`).set('authorization', mine.jwt),
          404,
          'error_not_found',
        );
      }
      await me(theirs.jwt).expect(200);
    });
  });

  it('limits working-company switches to a bucket of 10 per employee draining one every 6 s, with the object-form 429 body', async () => {
    clock.set('2026-11-22T03:00:00Z');
    const switcher = await createAccount(t, [alpha.id, beta.id]);
    let current = await login(t, switcher, alpha.id);
    let target = beta.id;
    const switchCompany = () =>
      t.http().post('/v1/users/changeworkingcompany').set('authorization', current.jwt).send({ company_id: target });
    for (let i = 0; i < 10; i++) {
      const res = await switchCompany().expect(200);
      current = res.body;
      target = target === beta.id ? alpha.id : beta.id;
    }
    const limited = await switchCompany().expect(429);
    expect(limited.body).toEqual({ error: ['error_rate_limit_exceed'], message: expect.any(String) });
    // One switch drains in 6 s: that is when the next one fits, not a minute later.
    expect(limited.headers['retry-after']).toBe('6');
    // The limited switch had no effect: the token still works.
    await me(current.jwt).expect(200);
    clock.advance(5_999);
    expect((await switchCompany().expect(429)).headers['retry-after']).toBe('1');
    clock.advance(1);
    current = (await switchCompany().expect(200)).body;
    target = target === beta.id ? alpha.id : beta.id;
    // Exactly one slot was freed, and the refused attempts took none.
    await switchCompany().expect(429);
    clock.advance(60_000);
    await switchCompany().expect(200);
  });
});
