import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { auditRows } from './support/audit-rows';
import { expectError } from './support/expectations';
import { startTestApp, type TestApp } from './support/test-app';

/** DELETE /v1/users/{id}: leaving one company, with the contract's refusals. */
describe('removing an employee from a company', () => {
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;

  const remove = (jwt: string, id: number | string) => authed(t, jwt).delete(`/v1/users/${id}`);
  const memberIds = async (jwt: string) =>
    (await authed(t, jwt).get('/v1/users?per_page=100').expect(200)).body.data.map((e: { id: number }) => e.id);

  beforeAll(async () => {
    t = await startTestApp();
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await createAccount(t, [alpha.id, beta.id], ['*']);
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  it('ends the membership here and blacklists the tokens and API keys here; the other company is untouched', async () => {
    const target = await createAccount(t, [alpha.id, beta.id], ['apikeys:manage', 'users:read']);
    const alphaJwt = (await login(t, target, alpha.id)).jwt;
    const betaLogin = await login(t, target, beta.id);
    const key = (
      await authed(t, alphaJwt)
        .post('/v1/apikeys', { name: 'k', permissions: ['users:read'] })
        .expect(201)
    ).body.api_key;
    const betaKey = (
      await authed(t, betaLogin.jwt)
        .post('/v1/apikeys', { name: 'k', permissions: ['users:read'] })
        .expect(201)
    ).body.api_key;
    // Cached before the removal.
    await authed(t, alphaJwt).get('/v1/users').expect(200);
    await authed(t, key).get('/v1/users').expect(200);

    await remove(ownerJwt, target.id).expect(204);
    expect(await auditRows(t, alpha.id, 'membership.removed')).toContainEqual(
      expect.objectContaining({
        actor_kind: 'employee',
        actor_id: String(owner.id),
        subject_id: String(target.id),
        subject_email: target.email,
        details: { permissions: ['apikeys:manage', 'users:read'] },
      }),
    );
    expect(await auditRows(t, beta.id, 'membership.removed')).toEqual([]);

    expectError(await authed(t, alphaJwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    expectError(await authed(t, key).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    expect(await memberIds(ownerJwt)).not.toContain(target.id);
    // The account and its other company go on.
    await authed(t, betaLogin.jwt).get('/v1/users').expect(200);
    await authed(t, betaKey).get('/v1/users').expect(200);
    await login(t, target, beta.id);
    const again = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: target.email, password: target.password, company_id: alpha.id });
    expectError(again, 403, 'error_company_not_member');
  });

  it('refuses removing oneself (403), changing nothing and recording nothing', async () => {
    const before = (await auditRows(t, alpha.id)).length;
    expectError(await remove(ownerJwt, owner.id), 403, 'error_permission_denied');
    expect((await auditRows(t, alpha.id)).length).toBe(before);
    expect(await memberIds(ownerJwt)).toContain(owner.id);
  });

  it('refuses removing someone holding a permission the caller lacks (403), changing nothing', async () => {
    const manager = await createAccount(t, [alpha.id], ['users:read', 'users:write']);
    const managerJwt = (await login(t, manager, alpha.id)).jwt;
    const richer = await createAccount(t, [alpha.id], ['users:read', 'orders:write']);
    expectError(await remove(managerJwt, richer.id), 403, 'error_permission_denied');
    expectError(await remove(managerJwt, owner.id), 403, 'error_permission_denied');
    expect(await memberIds(ownerJwt)).toEqual(expect.arrayContaining([richer.id, owner.id]));
    // Within its own permissions it may.
    const poorer = await createAccount(t, [alpha.id], ['users:read']);
    await remove(managerJwt, poorer.id).expect(204);
  });

  it('another company’s employee, an unknown id and a malformed id are 404 error_not_found', async () => {
    const outsider = await createAccount(t, [beta.id], []);
    expectError(await remove(ownerJwt, outsider.id), 404, 'error_not_found');
    expectError(await remove(ownerJwt, 987654), 404, 'error_not_found');
    expectError(await remove(ownerJwt, 'abc'), 404, 'error_not_found');
    const betaJwt = (await login(t, owner, beta.id)).jwt;
    expect(await memberIds(betaJwt)).toContain(outsider.id);
  });

  it('needs users:write and a login token (an API key is refused)', async () => {
    const reader = await createAccount(t, [alpha.id], ['users:read', 'apikeys:manage']);
    const readerJwt = (await login(t, reader, alpha.id)).jwt;
    const target = await createAccount(t, [alpha.id], []);
    expectError(await remove(readerJwt, target.id), 403, 'error_permission_denied');
    const ownerKey = (
      await authed(t, ownerJwt)
        .post('/v1/apikeys', { name: 'k', permissions: ['*'] })
        .expect(201)
    ).body.api_key;
    expectError(await remove(ownerKey, target.id), 403, 'error_permission_denied');
    expect(await memberIds(ownerJwt)).toContain(target.id);
  });
});
