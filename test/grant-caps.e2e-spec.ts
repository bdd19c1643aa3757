import { DataSource } from 'typeorm';
import { expectError } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { ManualClock } from './support/manual-clock';
import { expectScimError, issueScimToken, PATCH_OP, scimClient, USER_SCHEMA } from './support/scim';
import { listening, setDomainProven, ssoExchange, ssoSignIn } from './support/sso-sign-in';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md "Whose people a company may speak for": nobody grants more than they hold. A SCIM token carries
 * its creator's permissions from its creation and never more than the creator holds now; JIT grants no more than
 * the connection's last editor holds at each sign-in. Issue 34, finding 3: a SCIM token created by someone who
 * later lost `*` still removed and suspended `*` holders.
 */
describe('SCIM tokens and JIT grant no more than their maker holds now', () => {
  let t: TestApp;
  let base: string;
  let clock: ManualClock;
  let provider: JoseIdp;
  let acme: { id: number };
  let founder: Account;
  let founderJwt: string;

  const setPermissions = (jwt: string, employeeId: number, permissions: string[]) =>
    authed(t, jwt).put(`/v1/users/${employeeId}/permissions`, { permissions }).expect(200);
  const deactivate = (scim: ReturnType<typeof scimClient>, id: number) =>
    scim.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });
  const permissionsOf = async (employeeId: number): Promise<string[]> =>
    (
      await t.app
        .get(DataSource)
        .query<Array<{ permissions: string[] }>>(
          'SELECT permissions FROM membership WHERE employee_id = $1 AND company_id = $2',
          [employeeId, acme.id],
        )
    )[0].permissions;
  const connection = (jit: string[]) => ({
    issuer: provider.issuer,
    client_id: 'staff-auth',
    client_secret: 'a-client-secret-of-the-test',
    email_domains: ['acme.example'],
    enforced: false,
    jit: { enabled: true, permissions: jit },
  });

  beforeAll(async () => {
    clock = new ManualClock();
    t = await startTestApp({ clock, env: { SSO_INSECURE_ISSUERS: '127.0.0.1' } });
    base = await listening(t);
    provider = new JoseIdp('staff-auth');
    await provider.start();
    [acme] = await createCompanies(t, 'Acme');
    founder = await createAccount(t, [acme.id], ['*'], 'founder@acme.example');
    founderJwt = (await login(t, founder, acme.id)).jwt;
    await authed(t, founderJwt)
      .put('/v1/sso/connection', connection(['products:read', 'orders:read', 'users:read']))
      .expect(200);
    await setDomainProven(t, acme.id, 'acme.example');
  });
  afterAll(async () => {
    await provider?.stop();
    await t?.close();
  });

  it('POST /v1/scim/tokens needs `*` and a fresh proof, and a login token', async () => {
    const manager = await createAccount(t, [acme.id], ['sso:manage', 'users:write', 'users:read']);
    expectError(
      await authed(t, (await login(t, manager, acme.id)).jwt).post('/v1/scim/tokens', { name: 'x' }),
      403,
      'error_permission_denied',
    );
    const owner = await createAccount(t, [acme.id], ['*']);
    const stale = await login(t, owner, acme.id);
    clock.advance(16 * 60_000);
    try {
      expectError(
        await authed(t, stale.jwt).post('/v1/scim/tokens', { name: 'x' }),
        401,
        'error_reauthentication_required',
      );
    } finally {
      clock.advance(-16 * 60_000);
    }
    const key = await authed(t, stale.jwt)
      .post('/v1/apikeys', { name: 'all', permissions: ['*'] })
      .expect(201);
    expectError(
      await authed(t, key.body.api_key).post('/v1/scim/tokens', { name: 'x' }),
      403,
      'error_permission_denied',
    );
  });

  it('finding 3: a token whose creator lost `*` cannot suspend, change or remove a `*` holder (403 in SCIM form)', async () => {
    const creator = await createAccount(t, [acme.id], ['*']);
    const scim = scimClient(t, (await issueScimToken(t, (await login(t, creator, acme.id)).jwt)).token);
    const otherOwner = await createAccount(t, [acme.id], ['*']);
    const seller = await createAccount(t, [acme.id], ['products:read']);
    const reader = await createAccount(t, [acme.id], ['users:read']);
    // Another owner takes `*` from the creator: the token's reach shrinks with it.
    await setPermissions(founderJwt, creator.id, ['users:read', 'users:write']);

    expectScimError(await deactivate(scim, otherOwner.id), 403);
    expectScimError(await scim.put(`/Users/${otherOwner.id}`, { userName: otherOwner.email, displayName: 'X' }), 403);
    expectScimError(await scim.delete(`/Users/${otherOwner.id}`), 403);
    // Nor a member holding any permission the token lacks.
    expectScimError(await deactivate(scim, seller.id), 403);
    expect(await permissionsOf(otherOwner.id)).toEqual(['*']);
    await authed(t, (await login(t, otherOwner, acme.id)).jwt)
      .get('/v1/users/me')
      .expect(200);
    // What it still covers, it may do.
    await deactivate(scim, reader.id).expect(200);
    await scim.delete(`/Users/${reader.id}`).expect(204);
    // New members: at most its own permissions (the JIT ones it holds: users:read), read at each request.
    const created = await scim.post('/Users', { schemas: [USER_SCHEMA], userName: 'new1@acme.example' }).expect(201);
    expect(await permissionsOf(Number(created.body.id))).toEqual(['users:read']);
  });

  it('a token is worth nothing once its creator is no longer a member: 401, as for a deleted token', async () => {
    const creator = await createAccount(t, [acme.id], ['*']);
    const token = (await issueScimToken(t, (await login(t, creator, acme.id)).jwt)).token;
    const scim = scimClient(t, token);
    await scim.get('/Users').expect(200);
    await authed(t, founderJwt).delete(`/v1/users/${creator.id}`).expect(204);
    expectScimError(await scim.get('/Users'), 401);
    expectScimError(await scim.post('/Users', { userName: 'new2@acme.example' }), 401);
  });

  it('a token stores its creator’s permissions at creation', async () => {
    const creator = await createAccount(t, [acme.id], ['*']);
    const { id } = await issueScimToken(t, (await login(t, creator, acme.id)).jwt);
    const [row] = await t.app
      .get(DataSource)
      .query<Array<{ permissions: string[] }>>('SELECT permissions FROM scim_token WHERE id = $1', [id]);
    expect(row.permissions).toEqual(['*']);
  });

  it('JIT grants at each sign-in no more than the connection’s last editor holds then (none once gone)', async () => {
    const editor = await createAccount(t, [acme.id], ['*']);
    const editorJwt = (await login(t, editor, acme.id)).jwt;
    await authed(t, editorJwt)
      .put('/v1/sso/connection', connection(['products:read', 'orders:read']))
      .expect(200);
    const signInAs = async (email: string) => {
      provider.email = email;
      const session = await ssoExchange(base, await ssoSignIn(base, { company_id: acme.id }));
      return (await authed(t, session.jwt).get('/v1/users/me').expect(200)).body.permissions as string[];
    };
    expect(await signInAs('jit1@acme.example')).toEqual(['orders:read', 'products:read']);
    await setPermissions(founderJwt, editor.id, ['products:read', 'sso:manage']);
    expect(await signInAs('jit2@acme.example')).toEqual(['products:read']);
    await authed(t, founderJwt).delete(`/v1/users/${editor.id}`).expect(204);
    expect(await signInAs('jit3@acme.example')).toEqual([]);
    // Those already in keep what they were given; the cap is on what a sign-in grants.
    expect(await signInAs('jit1@acme.example')).toEqual(['orders:read', 'products:read']);
  });
});
