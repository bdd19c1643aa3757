import { auditRows } from './support/audit-rows';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const NEW_PASSWORD = 'Fresh-Granite-8812';

/** POST /v1/users/me/password, POST /v1/users/{id}/passwordreset and POST /v1/users/passwordreset. */
describe('passwords', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;

  const loginWith = (account: Account, password: string, companyId = alpha.id) =>
    t.http().post('/v1/users/authenticatefinish').send({ email: account.email, password, company_id: companyId });

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await createAccount(t, [alpha.id, beta.id], ['*']);
  });
  afterAll(() => t?.close());
  // Issuing reset codes and API keys are step-up actions, and tests move the clock: each starts from a fresh login.
  beforeEach(async () => {
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
  });

  describe('changing one’s own password', () => {
    it('needs the current password, ends every other session and keeps this one', async () => {
      const me = await createAccount(t, [alpha.id, beta.id], []);
      const here = await login(t, me, alpha.id);
      const other = await login(t, me, beta.id);
      await authed(t, other.jwt).get('/v1/users/me').expect(200);
      await authed(t, here.jwt)
        .post('/v1/users/me/password', { current_password: me.password, new_password: NEW_PASSWORD })
        .expect(204);
      await authed(t, here.jwt).get('/v1/users/me').expect(200);
      expectError(await authed(t, other.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
      expectError(await loginWith(me, me.password), 401, 'error_invalid_credentials');
      await loginWith(me, NEW_PASSWORD).expect(200);
      const events = await auditRows(t, beta.id, 'password.changed');
      expect(events).toContainEqual(expect.objectContaining({ subject_id: String(me.id), actor_id: String(me.id) }));
      expect(JSON.stringify(events)).not.toContain(NEW_PASSWORD);
    });

    it('a wrong current password is 401 error_invalid_credentials, counts toward the login lock, changes nothing', async () => {
      const me = await createAccount(t, [alpha.id], []);
      const jwt = (await login(t, me, alpha.id)).jwt;
      for (let i = 0; i < 10; i++) {
        const res = await authed(t, jwt).post('/v1/users/me/password', {
          current_password: 'not-my-password',
          new_password: NEW_PASSWORD,
        });
        expectError(res, 401, 'error_invalid_credentials');
      }
      // The e-mail is now locked for logins too.
      expectError(await loginWith(me, me.password), 429, 'error_rate_limit_exceed');
      clock.advance(15 * 60 * 1000 + 1000);
      await loginWith(me, me.password).expect(200);
    });

    it.each([
      ['too short', 'Sh0rt!'],
      ['too long', 'x'.repeat(257)],
      ['a common password', 'Password1'],
    ])('refuses a new password that is %s: 400 naming new_password, nothing changed', async (_what, password) => {
      const me = await createAccount(t, [alpha.id], []);
      const jwt = (await login(t, me, alpha.id)).jwt;
      expectInvalid(
        await authed(t, jwt).post('/v1/users/me/password', { current_password: me.password, new_password: password }),
        'new_password',
      );
      await loginWith(me, me.password).expect(200);
    });

    it('refuses the account’s own e-mail as the new password', async () => {
      const me = await createAccount(t, [alpha.id], []);
      const jwt = (await login(t, me, alpha.id)).jwt;
      const res = await authed(t, jwt).post('/v1/users/me/password', {
        current_password: me.password,
        new_password: me.email.toUpperCase(),
      });
      expectInvalid(res, 'new_password');
    });

    it('an API key cannot change its owner’s password (403)', async () => {
      const key = (
        await authed(t, ownerJwt)
          .post('/v1/apikeys', { name: 'k', permissions: ['users:read'] })
          .expect(201)
      ).body.api_key;
      const res = await authed(t, key).post('/v1/users/me/password', {
        current_password: owner.password,
        new_password: NEW_PASSWORD,
      });
      expectError(res, 403, 'error_permission_denied');
    });
  });

  describe('reset codes', () => {
    const issue = (jwt: string, id: number | string) => authed(t, jwt).post(`/v1/users/${id}/passwordreset`);
    const reset = (body: object) => t.http().post('/v1/users/passwordreset').send(body);

    it('issues a code shown once (no-store), usable once within 24 hours; every session ends; events recorded', async () => {
      const target = await createAccount(t, [alpha.id], ['products:read']);
      const session = await login(t, target, alpha.id);
      const issued = await issue(ownerJwt, target.id).expect(201);
      expect(issued.headers['cache-control']).toBe('no-store');
      expect(issued.body).toEqual({ code: expect.any(String), expires_at: '2026-11-22T03:15:01.000Z' });
      const { code } = issued.body;

      await reset({ email: target.email.toUpperCase(), code, new_password: NEW_PASSWORD }).expect(204);
      expectError(await authed(t, session.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
      await loginWith(target, NEW_PASSWORD).expect(200);
      // Single use.
      expectError(
        await reset({ email: target.email, code, new_password: 'Another-Pass-9931' }),
        400,
        'error_reset_code_invalid',
      );
      await loginWith(target, NEW_PASSWORD).expect(200);

      expect(await auditRows(t, alpha.id, 'password.reset_issued')).toContainEqual(
        expect.objectContaining({ actor_id: String(owner.id), subject_id: String(target.id) }),
      );
      const resetEvents = await auditRows(t, alpha.id, 'password.reset');
      expect(resetEvents).toContainEqual(expect.objectContaining({ subject_id: String(target.id) }));
      expect(JSON.stringify(await auditRows(t, alpha.id))).not.toContain(code);
      expect(t.logs.lines.join('\n')).not.toContain(code);
      expect(t.logs.lines.join('\n')).not.toContain(NEW_PASSWORD);
    });

    it('an expired code, a code for another e-mail and an unknown code are 400 error_reset_code_invalid', async () => {
      const target = await createAccount(t, [alpha.id], []);
      const other = await createAccount(t, [alpha.id], []);
      const { code } = (await issue(ownerJwt, target.id).expect(201)).body;
      expectError(
        await reset({ email: other.email, code, new_password: NEW_PASSWORD }),
        400,
        'error_reset_code_invalid',
      );
      expectError(
        await reset({ email: 'nobody@example.test', code, new_password: NEW_PASSWORD }),
        400,
        'error_reset_code_invalid',
      );
      expectError(
        await reset({ email: target.email, code: 'made-up', new_password: NEW_PASSWORD }),
        400,
        'error_reset_code_invalid',
      );
      clock.advance(24 * 60 * 60 * 1000 + 1);
      expectError(
        await reset({ email: target.email, code, new_password: NEW_PASSWORD }),
        400,
        'error_reset_code_invalid',
      );
      await loginWith(target, target.password).expect(200);
      await loginWith(other, other.password).expect(200);
    });

    it('a weak new password is 400 naming new_password, and leaves the code usable', async () => {
      const target = await createAccount(t, [alpha.id], []);
      const { code } = (await issue(ownerJwt, target.id).expect(201)).body;
      expectInvalid(await reset({ email: target.email, code, new_password: 'password1' }), 'new_password');
      await reset({ email: target.email, code, new_password: NEW_PASSWORD }).expect(204);
    });

    it('a newer code replaces the open one', async () => {
      const target = await createAccount(t, [alpha.id], []);
      const first = (await issue(ownerJwt, target.id).expect(201)).body.code;
      const second = (await issue(ownerJwt, target.id).expect(201)).body.code;
      expectError(
        await reset({ email: target.email, code: first, new_password: NEW_PASSWORD }),
        400,
        'error_reset_code_invalid',
      );
      await reset({ email: target.email, code: second, new_password: NEW_PASSWORD }).expect(204);
    });

    it('refuses an employee of another company too (403), someone holding more (403), another company’s employee (404)', async () => {
      const shared = await createAccount(t, [alpha.id, beta.id], []);
      expectError(await issue(ownerJwt, shared.id), 403, 'error_permission_denied');
      const manager = await createAccount(t, [alpha.id], ['users:write', 'users:read']);
      const managerJwt = (await login(t, manager, alpha.id)).jwt;
      const richer = await createAccount(t, [alpha.id], ['orders:read']);
      expectError(await issue(managerJwt, richer.id), 403, 'error_permission_denied');
      const outsider = await createAccount(t, [beta.id], []);
      expectError(await issue(ownerJwt, outsider.id), 404, 'error_not_found');
      expectError(await issue(ownerJwt, 'abc'), 404, 'error_not_found');
      const before = (await auditRows(t, alpha.id, 'password.reset_issued')).length;
      expect((await auditRows(t, alpha.id, 'password.reset_issued')).length).toBe(before);
    });

    it('refuses bad bodies with error_validation', async () => {
      expectInvalid(await reset({ email: 'not-an-email', code: 'x', new_password: NEW_PASSWORD }), 'email');
      expectInvalid(await reset({ email: 'a@b.example', new_password: NEW_PASSWORD }), 'code');
      expectInvalid(await reset({ email: 'a@b.example', code: 'x', new_password: NEW_PASSWORD, extra: 1 }), 'extra');
    });
  });
});
