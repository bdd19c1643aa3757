import { randomUUID } from 'node:crypto';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { OPENAPI_JSON_PATH } from '../src/operations/bootstrap/openapi';
import { auditRows } from './support/audit-rows';
import { expectError } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { DnsServer } from './support/dns-server';
import { JoseIdp } from './support/jose-idp';
import { ManualClock } from './support/manual-clock';
import { routeRules } from './support/route-rules';
import { startTestApp, type TestApp } from './support/test-app';

const MINUTE = 60_000;

/**
 * Step-up (docs/contract.md, Passkeys and step-up): every route whose rule says `stepUp` refuses a login token
 * whose session proved its person more than 15 minutes ago, and admits it again after `reauthenticate`.
 */
describe('step-up', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;

  const reauthenticate = (jwt: string, body: object) => authed(t, jwt).post('/v1/users/me/reauthenticate', body);

  /**
   * One case per step-up route: how to call it (after `prepare`, with a JWT of `caller`) and the status it answers
   * once admitted. A route marked `stepUp` without a case here fails the first test.
   */
  interface Case {
    prepare(): Promise<{ caller: Account; jwt: string; call(): ReturnType<ReturnType<typeof authed>['post']> }>;
    admitted: number;
    /** Sent to reauthenticate besides the password (the TOTP code, for an account with TOTP on). */
    proof?: () => object;
  }

  let totpSecret = '';
  const code = (offsetSteps = 0) => totpCodeAt(totpSecret, clock.nowMs() + offsetSteps * 30_000);

  let idp: JoseIdp;
  let dns: DnsServer;
  const ssoConnection = () => ({
    issuer: idp.issuer,
    client_id: 'staff-auth',
    client_secret: 'a-client-secret-of-the-test',
    email_domains: ['alpha.example'],
    enforced: false,
    jit: { enabled: false, permissions: [] },
  });

  const asOwner = async () => ({ caller: owner, jwt: (await login(t, owner, alpha.id)).jwt });
  const target = () => createAccount(t, [alpha.id], ['products:read']);

  const CASES: Record<string, Case> = {
    'POST /v1/apikeys': {
      admitted: 201,
      prepare: async () => {
        const me = await asOwner();
        return { ...me, call: () => authed(t, me.jwt).post('/v1/apikeys', { name: 'k', permissions: ['*'] }) };
      },
    },
    'PUT /v1/users/:id/permissions': {
      admitted: 200,
      prepare: async () => {
        const [me, other] = await Promise.all([asOwner(), target()]);
        const call = () => authed(t, me.jwt).put(`/v1/users/${other.id}/permissions`, { permissions: ['orders:read'] });
        return { ...me, call };
      },
    },
    'PUT /v1/roles/:id': {
      admitted: 200,
      prepare: async () => {
        const me = await asOwner();
        const name = `Role ${randomUUID()}`;
        const role = await authed(t, me.jwt).post('/v1/roles', { name, permissions: [] }).expect(201);
        const call = () => authed(t, me.jwt).put(`/v1/roles/${role.body.id}`, { name, permissions: ['orders:read'] });
        return { ...me, call };
      },
    },
    'PUT /v1/company/policy': {
      admitted: 200,
      prepare: async () => {
        const me = await asOwner();
        const policy = { mfa_required: false, session_days: 13, idle_timeout_minutes: null, ip_allowlist: [] };
        const call = () => authed(t, me.jwt).put('/v1/company/policy', policy);
        return { ...me, call };
      },
    },
    'POST /v1/users/:id/passwordreset': {
      admitted: 201,
      prepare: async () => {
        const [me, other] = await Promise.all([asOwner(), target()]);
        return { ...me, call: () => authed(t, me.jwt).post(`/v1/users/${other.id}/passwordreset`) };
      },
    },
    'POST /v1/users/:id/mfa/reset': {
      admitted: 204,
      prepare: async () => {
        const [me, other] = await Promise.all([asOwner(), target()]);
        return { ...me, call: () => authed(t, me.jwt).post(`/v1/users/${other.id}/mfa/reset`) };
      },
    },
    'POST /v1/users/me/passkeys/options': {
      admitted: 200,
      prepare: async () => {
        const me = await asOwner();
        return { ...me, call: () => authed(t, me.jwt).post('/v1/users/me/passkeys/options') };
      },
    },
    'PUT /v1/sso/connection': {
      admitted: 200,
      prepare: async () => {
        const me = await asOwner();
        return { ...me, call: () => authed(t, me.jwt).put('/v1/sso/connection', ssoConnection()) };
      },
    },
    'POST /v1/sso/connection/domains/verify': {
      admitted: 200,
      prepare: async () => {
        const me = await asOwner();
        await authed(t, me.jwt).put('/v1/sso/connection', ssoConnection()).expect(200);
        return { ...me, call: () => authed(t, me.jwt).post('/v1/sso/connection/domains/verify') };
      },
    },
    'DELETE /v1/sso/connection': {
      admitted: 204,
      prepare: async () => {
        const me = await asOwner();
        // Proven at this login, so the connection to remove is set without a reauthentication.
        await authed(t, me.jwt).put('/v1/sso/connection', ssoConnection()).expect(200);
        return { ...me, call: () => authed(t, me.jwt).delete('/v1/sso/connection') };
      },
    },
    'POST /v1/scim/tokens': {
      admitted: 201,
      prepare: async () => {
        const me = await asOwner();
        return { ...me, call: () => authed(t, me.jwt).post('/v1/scim/tokens', { name: 'Okta' }) };
      },
    },
    'DELETE /v1/scim/tokens/:id': {
      admitted: 204,
      prepare: async () => {
        const me = await asOwner();
        const { id } = (await authed(t, me.jwt).post('/v1/scim/tokens', { name: 'Entra' }).expect(201)).body;
        return { ...me, call: () => authed(t, me.jwt).delete(`/v1/scim/tokens/${id}`) };
      },
    },
    'POST /v1/users/me/mfa/totp/disable': {
      admitted: 204,
      proof: () => ({ otp: code() }),
      prepare: async () => {
        // TOTP is turned on within the session, so the login itself needed no code.
        const caller = await createAccount(t, [alpha.id], []);
        const { jwt } = await login(t, caller, alpha.id);
        const started = await authed(t, jwt)
          .post('/v1/users/me/mfa/totp', { current_password: caller.password })
          .expect(201);
        totpSecret = started.body.secret;
        await authed(t, jwt).post('/v1/users/me/mfa/totp/confirm', { otp: code() }).expect(204);
        // Each call sends a code of a later step than the one reauthenticate spent.
        const call = () =>
          authed(t, jwt).post('/v1/users/me/mfa/totp/disable', { current_password: caller.password, otp: code(1) });
        return { caller, jwt, call };
      },
    },
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    // A real (small) provider for the SSO connection's discovery document, on loopback.
    idp = new JoseIdp('staff-auth');
    await idp.start();
    // Domain verification asks this DNS server (on loopback), which holds no record: the domain stays pending.
    dns = await DnsServer.start();
    t = await startTestApp({ clock, env: { SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers } });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await createAccount(t, [alpha.id, beta.id], ['*']);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
    await dns?.stop();
  });

  it('every step-up route of the route metadata has a case here', () => {
    const stepUp = routeRules()
      .filter((rule) => rule.auth && !rule.auth.public && rule.auth.stepUp)
      .map((rule) => rule.route);
    expect(stepUp.sort()).toEqual(Object.keys(CASES).sort());
  });

  it('the OpenAPI document answers 401 error_reauthentication_required on exactly these routes', async () => {
    const document = (await t.http().get(OPENAPI_JSON_PATH).expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
    };
    const withCode = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.responses?.['401']?.$ref?.includes('reauthentication_required'))
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(withCode.sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))(
    '%s: refused when the proof is 16 minutes old, admitted after reauthenticate',
    async (route) => {
      const { prepare, admitted, proof } = CASES[route];
      const { caller, jwt, call } = await prepare();
      clock.advance(16 * MINUTE);
      expectError(await call(), 401, 'error_reauthentication_required');
      await reauthenticate(jwt, { current_password: caller.password, ...proof?.() }).expect(204);
      clock.advance(30_000);
      expect((await call()).status).toBe(admitted);
    },
  );

  it('a proof counts for 15 minutes: admitted at 15, refused past it', async () => {
    const { jwt } = await asOwner();
    const create = () => authed(t, jwt).post('/v1/apikeys', { name: 'k', permissions: ['products:read'] });
    clock.advance(15 * MINUTE);
    await create().expect(201);
    clock.advance(1000);
    expectError(await create(), 401, 'error_reauthentication_required');
  });

  it('a refresh or a company switch does not renew the proof', async () => {
    const session = await login(t, owner, alpha.id);
    clock.advance(16 * MINUTE);
    const refreshed = await t
      .http()
      .post('/v1/users/refreshtoken')
      .send({ refresh_token: session.refresh_token })
      .expect(200);
    const create = (jwt: string) => authed(t, jwt).post('/v1/apikeys', { name: 'k', permissions: ['products:read'] });
    expectError(await create(refreshed.body.jwt), 401, 'error_reauthentication_required');
    const switched = await authed(t, refreshed.body.jwt)
      .post('/v1/users/changeworkingcompany', { company_id: beta.id })
      .expect(200);
    expectError(await create(switched.body.jwt), 401, 'error_reauthentication_required');
    // The proof is the session's: made with the switched token, it admits that token.
    await reauthenticate(switched.body.jwt, { current_password: owner.password }).expect(204);
    await create(switched.body.jwt).expect(201);
  });

  it('an API key is never asked: it changes permissions with no proof at all', async () => {
    const { jwt } = await asOwner();
    const key = await authed(t, jwt)
      .post('/v1/apikeys', { name: 'k', permissions: ['users:write', 'products:read'] })
      .expect(201);
    const other = await target();
    clock.advance(60 * MINUTE);
    await authed(t, key.body.api_key).put(`/v1/users/${other.id}/permissions`, { permissions: [] }).expect(200);
    // Login-token-only step-up routes stay closed to it for their own reason.
    expectError(
      await authed(t, key.body.api_key).post(`/v1/users/${other.id}/passwordreset`),
      403,
      'error_permission_denied',
    );
  });

  it('a wrong password is 401 and counts toward the login lock; the proof stays old', async () => {
    const caller = await createAccount(t, [alpha.id], ['apikeys:manage']);
    const { jwt } = await login(t, caller, alpha.id);
    clock.advance(16 * MINUTE);
    for (let i = 0; i < 10; i++) {
      expectError(await reauthenticate(jwt, { current_password: 'wrong-password' }), 401, 'error_invalid_credentials');
    }
    // Locked now, the right password included, as at the login.
    expect((await reauthenticate(jwt, { current_password: caller.password })).status).toBe(429);
    expectError(
      await t.http().post('/v1/users/authenticateinit').send({ email: caller.email, password: caller.password }),
      429,
      'error_rate_limit_exceed',
    );
    expectError(
      await authed(t, jwt).post('/v1/apikeys', { name: 'k', permissions: ['apikeys:manage'] }),
      401,
      'error_reauthentication_required',
    );
    const failed = await auditRows(t, alpha.id, 'login.failed');
    expect(failed.filter((row) => row.actor_kind === 'anonymous').length).toBeGreaterThanOrEqual(10);
  });

  it('with TOTP on, the password alone is not a proof (error_otp_required); a wrong code counts as a failure', async () => {
    const { prepare } = CASES['POST /v1/users/me/mfa/totp/disable'];
    const { caller, jwt } = await prepare();
    clock.advance(16 * MINUTE);
    expectError(await reauthenticate(jwt, { current_password: caller.password }), 401, 'error_otp_required');
    const wrong = code(5);
    expectError(await reauthenticate(jwt, { current_password: caller.password, otp: wrong }), 401, 'error_otp_invalid');
  });

  it('reauthenticate records session.reauthenticated; an API key cannot call it; a body without a proof is 400', async () => {
    const caller = await createAccount(t, [alpha.id], ['apikeys:manage']);
    const session = await login(t, caller, alpha.id);
    await reauthenticate(session.jwt, { current_password: caller.password }).expect(204);
    const events = await auditRows(t, alpha.id, 'session.reauthenticated');
    expect(events.filter((row) => row.actor_id === String(caller.id))).toEqual([
      expect.objectContaining({ actor_kind: 'employee', details: { method: 'password' } }),
    ]);
    expect((await reauthenticate(session.jwt, {})).status).toBe(400);
    const key = await authed(t, session.jwt)
      .post('/v1/apikeys', { name: 'k', permissions: ['apikeys:manage'] })
      .expect(201);
    expectError(
      await reauthenticate(key.body.api_key, { current_password: caller.password }),
      403,
      'error_permission_denied',
    );
  });
});
