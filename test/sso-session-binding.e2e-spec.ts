import { auditRows } from './support/audit-rows';
import { expectError } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { ManualClock } from './support/manual-clock';
import { listening, setDomainProven, ssoExchange, ssoSignIn } from './support/sso-sign-in';
import { startTestApp, type TestApp } from './support/test-app';
import { SoftAuthenticator } from './support/webauthn';

const ORIGIN = 'https://staff.example.test';
const RP_ID = 'staff.example.test';

type Method = 'password' | 'passkey' | 'sso';

/**
 * docs/contract.md "Whose people a company may speak for": a session is bound to the way its person was proven.
 * One person per login method, each a member of four companies:
 *   Home      its connection (provider I) has proven home.example, the people's domain; enforced
 *   Plain     no connection
 *   Sibling   provider I too, but home.example is not a domain it has proven
 *   Elsewhere another provider (J); enforced
 * and enforcement on a fifth (Turned), whose other sessions end when it is turned on.
 */
describe('sessions bound to their way in', () => {
  let t: TestApp;
  let base: string;
  let clock: ManualClock;
  let providerI: JoseIdp;
  let providerJ: JoseIdp;
  let home: { id: number };
  let plain: { id: number };
  let sibling: { id: number };
  let elsewhere: { id: number };
  let turned: { id: number };
  let owner: Account;
  const people = {} as Record<Method, Account>;
  let passkey: SoftAuthenticator;

  const connection = (issuer: string, domains: string[], enforced: boolean) => ({
    issuer,
    client_id: 'staff-auth',
    client_secret: 'a-client-secret-of-the-test',
    email_domains: domains,
    enforced,
    jit: { enabled: false, permissions: [] },
  });
  const connect = async (companyId: number, body: ReturnType<typeof connection>) =>
    authed(t, (await login(t, owner, companyId)).jwt)
      .put('/v1/sso/connection', body)
      .expect(200);

  /** A new session of `method` for that method's person: password and passkey in Plain, SSO through Home. */
  async function sessionOf(method: Method): Promise<{ jwt: string; refresh_token: string }> {
    const person = people[method];
    if (method === 'password') return login(t, person, plain.id);
    if (method === 'passkey') {
      const { challenge_id, options } = (await t.http().post('/v1/users/passkeys/options').expect(200)).body;
      const step1 = await t
        .http()
        .post('/v1/users/passkeys/authenticate')
        .send({ challenge_id, response: passkey.assert(options.challenge) })
        .expect(200);
      return (
        await t
          .http()
          .post('/v1/users/authenticatefinish')
          .send({ login_ticket: step1.body.login_ticket, company_id: plain.id })
          .expect(200)
      ).body;
    }
    providerI.email = person.email;
    return ssoExchange(base, await ssoSignIn(base, { company_id: home.id }));
  }
  const switchTo = (jwt: string, companyId: number) =>
    authed(t, jwt).post('/v1/users/changeworkingcompany', { company_id: companyId });
  const refresh = (refreshToken: string) =>
    t.http().post('/v1/users/refreshtoken').send({ refresh_token: refreshToken });
  const outcome = (res: { status: number; body: { error?: string[] } }) =>
    res.status === 200 ? 200 : `${res.status} ${res.body.error?.[0]}`;

  beforeAll(async () => {
    clock = new ManualClock();
    t = await startTestApp({
      clock,
      env: { SSO_INSECURE_ISSUERS: '127.0.0.1', WEBAUTHN_RP_ID: RP_ID, WEBAUTHN_ORIGINS: ORIGIN },
    });
    base = await listening(t);
    providerI = new JoseIdp('staff-auth');
    providerJ = new JoseIdp('staff-auth');
    await providerI.start();
    await providerJ.start();
    [home, plain, sibling, elsewhere, turned] = await createCompanies(
      t,
      'Home',
      'Plain',
      'Sibling',
      'Elsewhere',
      'Turned',
    );
    const all = [home.id, plain.id, sibling.id, elsewhere.id, turned.id];
    owner = await createAccount(t, all, ['*'], 'owner@corp.example');
    for (const method of ['password', 'passkey', 'sso'] as const) {
      people[method] = await createAccount(t, all, ['apikeys:manage'], `${method}@home.example`);
    }
    passkey = new SoftAuthenticator('ES256', { origin: ORIGIN, rpId: RP_ID });
    const passkeyJwt = (await login(t, people.passkey, plain.id)).jwt;
    const options = (await authed(t, passkeyJwt).post('/v1/users/me/passkeys/options').expect(200)).body;
    await authed(t, passkeyJwt)
      .post('/v1/users/me/passkeys', { name: 'Laptop', response: passkey.register(options) })
      .expect(201);

    await connect(home.id, connection(providerI.issuer, ['home.example'], false));
    await setDomainProven(t, home.id, 'home.example');
    await connect(home.id, connection(providerI.issuer, ['home.example'], true));
    await connect(sibling.id, connection(providerI.issuer, ['sibling.example'], false));
    await connect(elsewhere.id, connection(providerJ.issuer, ['elsewhere.example'], true));
  });
  afterAll(async () => {
    await providerI?.stop();
    await providerJ?.stop();
    await t?.close();
  });

  it('the switch from a session of each login method into companies that do and do not trust it', async () => {
    const targets = { Home: home, Plain: plain, Sibling: sibling, Elsewhere: elsewhere };
    const seen: Record<string, Record<string, number | string>> = {};
    for (const method of ['password', 'passkey', 'sso'] as const) {
      seen[method] = {};
      for (const [name, company] of Object.entries(targets)) {
        // A fresh session for each cell: a switch that succeeds moves the session.
        const session = await sessionOf(method);
        seen[method][name] = outcome(await switchTo(session.jwt, company.id));
      }
    }
    expect(seen).toEqual({
      password: { Home: '403 error_sso_required', Plain: 200, Sibling: 200, Elsewhere: '403 error_sso_required' },
      passkey: { Home: '403 error_sso_required', Plain: 200, Sibling: 200, Elsewhere: '403 error_sso_required' },
      sso: {
        Home: 200,
        Plain: '403 error_login_method_not_accepted',
        Sibling: '403 error_login_method_not_accepted',
        Elsewhere: '403 error_login_method_not_accepted',
      },
    });
  });

  it('a refused switch leaves the session where it was, working', async () => {
    const session = await sessionOf('sso');
    expectError(await switchTo(session.jwt, plain.id), 403, 'error_login_method_not_accepted');
    const me = await authed(t, session.jwt).get('/v1/users/me').expect(200);
    expect(me.body.company.id).toBe(home.id);
    await refresh(session.refresh_token).expect(200);
  });

  it('an SSO session neither refreshes nor counts as step-up once its company no longer vouches for the e-mail', async () => {
    const session = await sessionOf('sso');
    await setDomainProven(t, home.id, 'home.example', false);
    try {
      // Its requests go on until the token expires; what renews it or needs a fresh proof does not.
      await authed(t, session.jwt).get('/v1/users/me').expect(200);
      expectError(await refresh(session.refresh_token), 403, 'error_login_method_not_accepted');
      expectError(
        await authed(t, session.jwt).post('/v1/apikeys', { name: 'k', permissions: ['apikeys:manage'] }),
        401,
        'error_reauthentication_required',
      );
    } finally {
      await setDomainProven(t, home.id, 'home.example');
    }
    // The refused refresh spent nothing: vouched for again, the same refresh token works.
    const renewed = await refresh(session.refresh_token).expect(200);
    await authed(t, renewed.body.jwt)
      .post('/v1/apikeys', { name: 'k', permissions: ['apikeys:manage'] })
      .expect(201);
  });

  it('turning enforcement on ends the company’s other sessions not opened through its provider', async () => {
    const member = people.password;
    const ssoPerson = await createAccount(t, [turned.id], ['products:read'], 'b@turned.example');
    const caller = await login(t, owner, turned.id);
    await authed(t, caller.jwt)
      .put('/v1/sso/connection', connection(providerI.issuer, ['turned.example'], false))
      .expect(200);
    await setDomainProven(t, turned.id, 'turned.example');
    const inTurned = await login(t, member, turned.id);
    const inPlain = await login(t, member, plain.id);
    providerI.email = ssoPerson.email;
    const viaProvider = await ssoExchange(base, await ssoSignIn(base, { company_id: turned.id }));

    await authed(t, caller.jwt)
      .put('/v1/sso/connection', connection(providerI.issuer, ['turned.example'], true))
      .expect(200);

    expectError(await authed(t, inTurned.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    expectError(await refresh(inTurned.refresh_token), 400, 'error_jwt_blacklisted');
    // Elsewhere, and through the provider, sessions go on.
    await authed(t, inPlain.jwt).get('/v1/users/me').expect(200);
    await authed(t, viaProvider.jwt).get('/v1/users/me').expect(200);
    const renewed = (await refresh(viaProvider.refresh_token).expect(200)).body as { jwt: string };
    // The caller's own session works until it expires, but is not renewed.
    await authed(t, caller.jwt).get('/v1/users/me').expect(200);
    expectError(await refresh(caller.refresh_token), 403, 'error_sso_required');
    const revoked = await auditRows(t, turned.id, 'session.revoked');
    expect(revoked).toEqual([
      expect.objectContaining({ subject_kind: 'session', details: { reason: 'sso_enforced' } }),
    ]);
    // Saving it again, still enforced, ends nothing more.
    await authed(t, caller.jwt)
      .put('/v1/sso/connection', connection(providerI.issuer, ['turned.example'], true))
      .expect(200);
    await authed(t, renewed.jwt).get('/v1/users/me').expect(200);
    await authed(t, inPlain.jwt).get('/v1/users/me').expect(200);
  });
});
