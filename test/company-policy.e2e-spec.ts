import { DataSource } from 'typeorm';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { CLI_COMMANDS } from '../src/operations/cli/cli-commands';
import { auditRows } from './support/audit-rows';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, createAccount, createCompanies, type LoginBody } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md "Company policies and roles": GET/PUT /v1/company/policy, its validation, its event, and the
 * `ip_allowlist` on logins and on every request with the company's credentials (the client address as
 * TRUST_PROXY defines it: the test's requests come through a "proxy" at 127.0.0.1 naming the client).
 */
describe('company policy', () => {
  const clock = new ManualClock('2026-11-21T03:00:00Z');
  let t: TestApp;
  let acme: { id: number };
  let other: { id: number };
  let owner: Account;
  let member: Account;

  interface Policy {
    mfa_required: boolean;
    session_days: number;
    idle_timeout_minutes: number | null;
    ip_allowlist: string[];
  }
  const DEFAULTS: Policy = { mfa_required: false, session_days: 14, idle_timeout_minutes: null, ip_allowlist: [] };
  const OWNER_IP = '198.51.100.7';

  /** Requests from `ip` (X-Forwarded-For, honoured because TRUST_PROXY names 127.0.0.1) with `credential`. */
  const from = (ip: string, credential?: string) => {
    const withHeaders = <R extends { set(name: string, value: string): R }>(req: R) =>
      credential === undefined
        ? req.set('x-forwarded-for', ip)
        : req.set('x-forwarded-for', ip).set('authorization', credential);
    return {
      get: (path: string) => withHeaders(t.http().get(path)),
      put: (path: string, body: object) => withHeaders(t.http().put(path)).send(body),
      post: (path: string, body: object) => withHeaders(t.http().post(path)).send(body),
    };
  };
  const loginFrom = (ip: string, account: Account, companyId = acme.id) =>
    from(ip).post('/v1/users/authenticatefinish', {
      email: account.email,
      password: account.password,
      company_id: companyId,
    });
  const loggedIn = async (
    ip: string,
    account: Account,
    companyId = acme.id,
  ): Promise<LoginBody & { restricted?: string }> => {
    const res = await loginFrom(ip, account, companyId);
    expect(res.status).toBe(200);
    return res.body as LoginBody & { restricted?: string };
  };
  const policy = (changes: Record<string, unknown> = {}) => ({ ...DEFAULTS, ...changes });

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' } });
    [acme, other] = await createCompanies(t, 'Policy Acme', 'Policy Other');
    owner = await createAccount(t, [acme.id, other.id], ['*']);
    member = await createAccount(t, [acme.id], []);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('any member reads the defaults; nobody without a credential', async () => {
    const { jwt } = await loggedIn(OWNER_IP, member);
    const res = await from(OWNER_IP, jwt).get('/v1/company/policy');
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: DEFAULTS });
    expectError(await t.http().get('/v1/company/policy'), 401, 'error_jwt_is_required');
  });

  it('changing it needs `*`, a login token and a fresh proof of the person', async () => {
    const { jwt: memberJwt } = await loggedIn(OWNER_IP, member);
    expectError(await from(OWNER_IP, memberJwt).put('/v1/company/policy', policy()), 403, 'error_permission_denied');
    const { jwt } = await loggedIn(OWNER_IP, owner);
    const key = (
      await from(OWNER_IP, jwt)
        .post('/v1/apikeys', { name: 'k', permissions: ['*'] })
        .expect(201)
    ).body.api_key as string;
    expectError(await from(OWNER_IP, key).put('/v1/company/policy', policy()), 403, 'error_permission_denied');
    clock.advance(16 * 60_000);
    expectError(
      await from(OWNER_IP, jwt).put('/v1/company/policy', policy({ session_days: 3 })),
      401,
      'error_reauthentication_required',
    );
    expect((await from(OWNER_IP, jwt).get('/v1/company/policy')).body).toEqual(DEFAULTS);
  });

  it.each([
    [{ session_days: 0 }, 'session_days'],
    [{ session_days: 15 }, 'session_days'],
    [{ session_days: 2.5 }, 'session_days'],
    [{ idle_timeout_minutes: 14 }, 'idle_timeout_minutes'],
    [{ idle_timeout_minutes: 10081 }, 'idle_timeout_minutes'],
    [{ mfa_required: 'yes' }, 'mfa_required'],
    [{ ip_allowlist: '198.51.100.0/24' }, 'ip_allowlist'],
    [{ ip_allowlist: ['198.51.100.0/33'] }, 'ip_allowlist[0]'],
    [{ ip_allowlist: [OWNER_IP, 'example.com'] }, 'ip_allowlist[1]'],
    [{ ip_allowlist: ['198.51.100.0/24/1'] }, 'ip_allowlist[0]'],
    [{ ip_allowlist: ['2001:db8::/129'] }, 'ip_allowlist[0]'],
    [{ ip_allowlist: ['fe80::1%eth0/64'] }, 'ip_allowlist[0]'],
    [{ ip_allowlist: ['010.1.1.1/8'] }, 'ip_allowlist[0]'],
    [{ extra: true }, 'extra'],
  ])('refuses %j (400, nothing saved)', async (change, field) => {
    const { jwt } = await loggedIn(OWNER_IP, owner);
    expectInvalid(await from(OWNER_IP, jwt).put('/v1/company/policy', policy(change)), field);
    expect((await from(OWNER_IP, jwt).get('/v1/company/policy')).body).toEqual(DEFAULTS);
  });

  it('refuses a body without one of the fields', async () => {
    const { jwt } = await loggedIn(OWNER_IP, owner);
    const { session_days: _omitted, ...rest } = DEFAULTS;
    expectInvalid(await from(OWNER_IP, jwt).put('/v1/company/policy', rest), 'session_days');
  });

  it("refuses a list without the caller's own address, so nobody locks themselves out", async () => {
    const { jwt } = await loggedIn(OWNER_IP, owner);
    const res = await from(OWNER_IP, jwt).put('/v1/company/policy', policy({ ip_allowlist: ['203.0.113.0/24'] }));
    expectInvalid(res, 'ip_allowlist');
    expect(res.body.message).toContain(OWNER_IP);
    expect((await from(OWNER_IP, jwt).get('/v1/company/policy')).body).toEqual(DEFAULTS);
  });

  describe('with an allowlist', () => {
    let ownerJwt: string;
    let ownerKey: string;
    let outsideSession: LoginBody;
    let otherCompanyJwt: string;

    beforeAll(async () => {
      ownerJwt = (await loggedIn(OWNER_IP, owner)).jwt;
      ownerKey = (
        await from(OWNER_IP, ownerJwt)
          .post('/v1/apikeys', { name: 'k2', permissions: ['*'] })
          .expect(201)
      ).body.api_key;
      outsideSession = await loggedIn('192.0.2.50', member);
      // Seen once before the change, so its credential is cached on this instance.
      await from('192.0.2.50', outsideSession.jwt).get('/v1/users/me').expect(200);
      otherCompanyJwt = (await loggedIn('192.0.2.50', owner, other.id)).jwt;
      const saved = await from(OWNER_IP, ownerJwt).put(
        '/v1/company/policy',
        policy({
          session_days: 7,
          ip_allowlist: ['203.0.113.77/24', '2001:DB8:0:0::/32', OWNER_IP, '::ffff:192.0.2.128/121', OWNER_IP],
        }),
      );
      expect({ status: saved.status, body: saved.body }).toEqual({
        status: 200,
        body: policy({
          session_days: 7,
          ip_allowlist: ['203.0.113.0/24', '2001:db8::/32', `${OWNER_IP}/32`, '192.0.2.128/25'],
        }),
      });
    });

    it('records company.policy_changed with what changed', async () => {
      const [event] = await auditRows(t, acme.id, 'company.policy_changed');
      expect(event!.actor_id).toBe(String(owner.id));
      expect(event!.details).toEqual({
        changed: {
          session_days: { from: 14, to: 7 },
          ip_allowlist: { from: [], to: ['203.0.113.0/24', '2001:db8::/32', `${OWNER_IP}/32`, '192.0.2.128/25'] },
        },
      });
      expect((await from(OWNER_IP, ownerJwt).get('/v1/company/policy')).body.session_days).toBe(7);
    });

    it('ends the sessions the new list refuses, not the caller’s, and not in other companies', async () => {
      expectError(await from('203.0.113.1', outsideSession.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
      const revoked = await auditRows(t, acme.id, 'session.revoked');
      expect(revoked.map((row) => [row.subject_id, row.details])).toEqual([
        [outsideSession.session_id, { reason: 'ip_not_allowed' }],
      ]);
      await from(OWNER_IP, ownerJwt).get('/v1/users/me').expect(200);
      await from('192.0.2.50', otherCompanyJwt).get('/v1/users/me').expect(200);
    });

    it.each([
      ['203.0.113.200', 200],
      ['2001:db8:ffff::1', 200],
      ['::ffff:203.0.113.9', 200],
      ['192.0.2.200', 200],
      [OWNER_IP, 200],
      ['198.51.100.8', 403],
      ['192.0.2.127', 403],
      ['2001:db9::1', 403],
      ['::ffff:198.51.100.8', 403],
      ['127.0.0.1', 403],
    ])('a request with its credentials from %s answers %i (JWT and API key)', async (ip, status) => {
      for (const credential of [ownerJwt, ownerKey]) {
        const res = await from(ip, credential).get('/v1/users/me');
        if (status === 200) expect(res.status).toBe(200);
        else expectError(res, 403, 'error_ip_not_allowed');
      }
    });

    it('refuses a login from outside the list, and a switch or refresh into the company', async () => {
      const failedBefore = (await auditRows(t, acme.id, 'login.failed')).length;
      expectError(await loginFrom('192.0.2.9', member), 403, 'error_ip_not_allowed');
      // A login attempt like any other (docs/contract.md "Audit log"), recorded though the session rolled back.
      const failed = await auditRows(t, acme.id, 'login.failed');
      expect(failed.slice(failedBefore).map((row) => [row.subject_id, row.details])).toEqual([
        [String(member.id), { reason: 'ip_not_allowed', company_id: acme.id }],
      ]);
      await loggedIn('2001:db8::5', member);
      const elsewhere = await loggedIn('192.0.2.9', owner, other.id);
      expectError(
        await from('192.0.2.9', elsewhere.jwt).post('/v1/users/changeworkingcompany', { company_id: acme.id }),
        403,
        'error_ip_not_allowed',
      );
      const inside = await loggedIn('203.0.113.3', owner);
      expectError(
        await from('192.0.2.9').post('/v1/users/refreshtoken', { refresh_token: inside.refresh_token }),
        403,
        'error_ip_not_allowed',
      );
      await from('203.0.113.3').post('/v1/users/refreshtoken', { refresh_token: inside.refresh_token }).expect(200);
    });

    it('policy:reset (the operator CLI) opens the company to every address again, on the cached credentials too', async () => {
      expectError(await from('192.0.2.9', ownerJwt).get('/v1/users/me'), 403, 'error_ip_not_allowed');
      const reset = CLI_COMMANDS['policy:reset']!;
      await expect(reset.run(t.app, { company: String(acme.id) })).resolves.toEqual({
        company_id: acme.id,
        reset: true,
        policy: DEFAULTS,
      });
      await from('192.0.2.9', ownerJwt).get('/v1/users/me').expect(200);
      await loggedIn('192.0.2.9', member);
      expect((await from('192.0.2.9', ownerJwt).get('/v1/company/policy')).body).toEqual(DEFAULTS);
      const events = await auditRows(t, acme.id, 'company.policy_changed');
      expect(events.at(-1)).toMatchObject({
        actor_kind: 'operator',
        details: {
          changed: {
            session_days: { from: 7, to: 14 },
            ip_allowlist: { from: ['203.0.113.0/24', '2001:db8::/32', `${OWNER_IP}/32`, '192.0.2.128/25'], to: [] },
          },
        },
      });
      // Nothing left to reset: said so, nothing recorded; an unknown company is refused.
      await expect(reset.run(t.app, { company: String(acme.id) })).resolves.toMatchObject({ reset: false });
      expect(await auditRows(t, acme.id, 'company.policy_changed')).toHaveLength(events.length);
      await expect(reset.run(t.app, { company: '987654' })).rejects.toThrow(/company 987654/);
    });
  });

  describe('session_days', () => {
    let days: { id: number };
    let person: Account;

    beforeAll(async () => {
      [days] = await createCompanies(t, 'Policy Days');
      person = await createAccount(t, [days.id], ['*']);
    });

    it('1: a token of a login at 10:00 Vietnam time ends at 23:59:59 Vietnam time the next day', async () => {
      clock.set('2026-12-01T03:00:00Z'); // 10:00 in Vietnam, still 30 November in Los Angeles
      const early = await loggedIn(OWNER_IP, person, days.id);
      expect(early.expires_at).toBe('2026-12-15T23:59:59+07:00');
      await from(OWNER_IP, early.jwt)
        .put('/v1/company/policy', policy({ session_days: 1 }))
        .expect(200);

      // The token issued before the change is held to the new lifetime too.
      const later = await loggedIn(OWNER_IP, person, days.id);
      expect(later.expires_at).toBe('2026-12-02T23:59:59+07:00');
      clock.set('2026-12-02T23:59:58+07:00');
      await from(OWNER_IP, later.jwt).get('/v1/users/me').expect(200);
      await from(OWNER_IP, early.jwt).get('/v1/users/me').expect(200);
      clock.set('2026-12-02T23:59:59+07:00');
      expectError(await from(OWNER_IP, later.jwt).get('/v1/users/me'), 400, 'error_jwt_expired');
      expectError(await from(OWNER_IP, early.jwt).get('/v1/users/me'), 400, 'error_jwt_expired');
    });

    it('1: a refresh renews for one day after its own day', async () => {
      clock.set('2026-12-05T16:30:00Z'); // 23:30 in Vietnam
      const session = await loggedIn(OWNER_IP, person, days.id);
      expect(session.expires_at).toBe('2026-12-06T23:59:59+07:00');
      clock.set('2026-12-06T20:00:00+07:00');
      const renewed = await from(OWNER_IP).post('/v1/users/refreshtoken', { refresh_token: session.refresh_token });
      expect(renewed.status).toBe(200);
      expect(renewed.body.expires_at).toBe('2026-12-07T23:59:59+07:00');
    });
  });

  describe('idle_timeout_minutes', () => {
    let idle: { id: number };
    let person: Account;
    const MINUTE = 60_000;
    const storedUse = async (sessionId: string, atMs: number) => {
      for (let tries = 0; tries < 100; tries++) {
        const [row] = await t.app
          .get(DataSource)
          .query('SELECT last_used_at FROM login_session WHERE id = $1', [sessionId]);
        if (new Date(row.last_used_at).getTime() === atMs) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('the use was never recorded');
    };

    beforeAll(async () => {
      [idle] = await createCompanies(t, 'Policy Idle');
      person = await createAccount(t, [idle.id], ['*']);
    });

    it('ends a session unused that long (error_jwt_blacklisted, session.revoked "idle"); each use restarts it', async () => {
      clock.set('2026-12-10T03:00:00Z');
      const admin = await loggedIn(OWNER_IP, person, idle.id);
      await from(OWNER_IP, admin.jwt)
        .put('/v1/company/policy', policy({ idle_timeout_minutes: 15 }))
        .expect(200);
      const session = await loggedIn(OWNER_IP, person, idle.id);
      for (let step = 0; step < 3; step++) {
        clock.advance(14 * MINUTE);
        await from(OWNER_IP, session.jwt).get('/v1/users/me').expect(200);
        // The use is written off the request's path; the next look-up (the cache's 30 s are long past) reads it.
        await storedUse(session.session_id, clock.nowMs());
      }
      clock.advance(15 * MINUTE);
      const res = await from(OWNER_IP, session.jwt).get('/v1/users/me');
      expectError(res, 400, 'error_jwt_blacklisted');
      expectError(await from(OWNER_IP, session.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
      expectError(
        await from(OWNER_IP).post('/v1/users/refreshtoken', { refresh_token: session.refresh_token }),
        400,
        'error_jwt_blacklisted',
      );
      const revoked = (await auditRows(t, idle.id, 'session.revoked')).filter((row) => row.details.reason === 'idle');
      // The admin's session, unused for 57 minutes meanwhile, ends at its next use (below), not before.
      expect(revoked.map((row) => row.subject_id)).toEqual([session.session_id]);
      expectError(await from(OWNER_IP, admin.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    });

    it('a session read fresh from the database is judged by its stored last use', async () => {
      clock.set('2026-12-11T03:00:00Z');
      const session = await loggedIn(OWNER_IP, person, idle.id);
      // Past the credential cache's freshness: the next request looks the token up again.
      clock.advance(16 * MINUTE);
      expectError(await from(OWNER_IP, session.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    });
  });

  describe('mfa_required', () => {
    let secured: { id: number };
    let person: Account;

    beforeAll(async () => {
      [secured] = await createCompanies(t, 'Policy MFA');
      person = await createAccount(t, [secured.id], ['*']);
    });

    it('a login without a second factor is restricted to enrolling one, until the person logs in again', async () => {
      clock.set('2026-12-12T03:00:00Z');
      const before = await loggedIn(OWNER_IP, person, secured.id);
      expect(before.restricted).toBeUndefined();
      await from(OWNER_IP, before.jwt)
        .put('/v1/company/policy', policy({ mfa_required: true }))
        .expect(200);
      // The session that was open already is restricted from the change on.
      expectError(await from(OWNER_IP, before.jwt).get('/v1/company/policy'), 403, 'error_mfa_enrollment_required');

      const session = await loggedIn(OWNER_IP, person, secured.id);
      expect(session.restricted).toBe('mfa_enrollment');
      const me = await from(OWNER_IP, session.jwt).get('/v1/users/me');
      expect({ status: me.status, restricted: me.body.restricted }).toEqual({
        status: 200,
        restricted: 'mfa_enrollment',
      });
      for (const path of ['/v1/company/policy', '/v1/users', '/v1/users/sessions', '/v1/auditevents']) {
        expectError(await from(OWNER_IP, session.jwt).get(path), 403, 'error_mfa_enrollment_required');
      }
      expectError(
        await from(OWNER_IP, session.jwt).post('/v1/users/me/reauthenticate', { current_password: person.password }),
        403,
        'error_mfa_enrollment_required',
      );
      await from(OWNER_IP, session.jwt).get('/v1/users/me/passkeys').expect(200);
      const { secret } = (
        await from(OWNER_IP, session.jwt)
          .post('/v1/users/me/mfa/totp', { current_password: person.password })
          .expect(201)
      ).body;
      await from(OWNER_IP, session.jwt)
        .post('/v1/users/me/mfa/totp/confirm', { otp: totpCodeAt(secret, clock.nowMs()) })
        .expect(204);
      // Enrolled, but this session proved no second factor: still restricted; logout stays open.
      expectError(await from(OWNER_IP, session.jwt).get('/v1/users'), 403, 'error_mfa_enrollment_required');
      await from(OWNER_IP, session.jwt).post('/v1/users/logout', {}).expect(204);

      clock.advance(30_000);
      const proven = await from(OWNER_IP).post('/v1/users/authenticatefinish', {
        email: person.email,
        password: person.password,
        company_id: secured.id,
        otp: totpCodeAt(secret, clock.nowMs()),
      });
      expect(proven.status).toBe(200);
      expect(proven.body.restricted).toBeUndefined();
      await from(OWNER_IP, proven.body.jwt).get('/v1/users').expect(200);
      expect((await from(OWNER_IP, proven.body.jwt).get('/v1/users/me')).body.restricted).toBeUndefined();
    });

    it('once enrolled, a password alone is asked for the code (no restricted session any more)', async () => {
      clock.set('2026-12-13T03:00:00Z');
      const res = await from(OWNER_IP).post('/v1/users/authenticatefinish', {
        email: person.email,
        password: person.password,
        company_id: secured.id,
      });
      expectError(res, 401, 'error_otp_required');
    });
  });
});
