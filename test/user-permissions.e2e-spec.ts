import { ManualClock } from './support/manual-clock';
import type { Grant } from '../src/access/permissions/permission';
import { type Account, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError } from './support/expectations';

/** PUT /v1/users/{id}/permissions: who may change whose permissions, and how fast credentials follow. */
describe('changing an employee’s permissions', () => {
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;
  /** users:read + users:write + products:read + orders:read in alpha. */
  let manager: Account;
  let managerJwt: string;

  const put = (jwt: string, id: number | string, permissions: unknown) =>
    t.http().put(`/v1/users/${id}/permissions`).set('authorization', jwt).send({ permissions });
  const permissionsOf = async (employeeId: number): Promise<Grant[]> => {
    const res = await t.http().get(`/v1/users?per_page=100`).set('authorization', ownerJwt).expect(200);
    return res.body.data.find((e: { id: number }) => e.id === employeeId).permissions;
  };
  const member = (permissions: Grant[], companies = [alpha.id]) => createAccount(t, companies, permissions);

  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock('2026-11-21T03:00:00Z') });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await member(['*'], [alpha.id, beta.id]);
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
    manager = await member(['users:read', 'users:write', 'products:read', 'orders:read']);
    managerJwt = (await login(t, manager, alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  describe('grant and revoke', () => {
    it('replaces the set and answers the employee as GET /v1/users lists it', async () => {
      const target = await member(['products:read']);
      const res = await put(ownerJwt, target.id, ['users:read', 'orders:write']).expect(200);
      expect(res.body).toEqual({
        id: target.id,
        email: target.email,
        name: expect.any(String),
        permissions: ['orders:write', 'users:read'],
        roles: [],
      });
      const listed = (await t.http().get('/v1/users?per_page=100').set('authorization', ownerJwt).expect(200)).body
        .data;
      expect(listed).toContainEqual({ ...res.body, mfa: false });

      // Revoking everything leaves a member without permissions, not a non-member.
      expect((await put(ownerJwt, target.id, []).expect(200)).body.permissions).toEqual([]);
      const jwt = (await login(t, target, alpha.id)).jwt;
      expect((await t.http().get('/v1/users/me').set('authorization', jwt).expect(200)).body.permissions).toEqual([]);
    });

    it('normalises: `*` alone stands for everything', async () => {
      const target = await member([]);
      expect((await put(ownerJwt, target.id, ['users:read', '*']).expect(200)).body.permissions).toEqual(['*']);
    });

    it('an employee without `*` can move another within its own permissions', async () => {
      const target = await member(['products:read']);
      const res = await put(managerJwt, target.id, ['orders:read', 'users:read']).expect(200);
      expect(res.body.permissions).toEqual(['orders:read', 'users:read']);
      expect((await put(managerJwt, target.id, []).expect(200)).body.permissions).toEqual([]);
    });
  });

  describe('the change reaches credentials already in use on the very next request', () => {
    it('a token that could GET /v1/users loses access once users:read is removed, and regains it', async () => {
      const target = await member(['users:read', 'products:read']);
      const jwt = (await login(t, target, alpha.id)).jwt;
      const list = () => t.http().get('/v1/users').set('authorization', jwt);
      // Twice, so that the second answer certainly came from the credential cache.
      await list().expect(200);
      await list().expect(200);

      await put(ownerJwt, target.id, ['products:read']).expect(200);
      expectError(await list(), 403, 'error_permission_denied');
      expect((await t.http().get('/v1/users/me').set('authorization', jwt).expect(200)).body.permissions).toEqual([
        'products:read',
      ]);

      await put(ownerJwt, target.id, ['products:read', 'users:read']).expect(200);
      await list().expect(200);
    });

    it('an API key of the employee is narrowed to the new permissions at its next use', async () => {
      const target = await member(['apikeys:manage', 'users:read']);
      const jwt = (await login(t, target, alpha.id)).jwt;
      const key = (
        await t
          .http()
          .post('/v1/apikeys')
          .set('authorization', jwt)
          .send({ name: 'sync', permissions: ['users:read'] })
          .expect(201)
      ).body.api_key as string;
      await t.http().get('/v1/users').set('authorization', key).expect(200);
      await t.http().get('/v1/users').set('authorization', key).expect(200);

      await put(ownerJwt, target.id, ['apikeys:manage']).expect(200);
      expectError(await t.http().get('/v1/users').set('authorization', key), 403, 'error_permission_denied');
      expect((await t.http().get('/v1/users/me').set('authorization', key).expect(200)).body.permissions).toEqual([]);
      // The key keeps what it was given: granting the owner users:read again restores it.
      await put(ownerJwt, target.id, ['apikeys:manage', 'users:read']).expect(200);
      await t.http().get('/v1/users').set('authorization', key).expect(200);
    });

    it('only that company’s credentials change: the same employee’s token for another company keeps its permissions', async () => {
      const target = await member(['users:read'], [alpha.id, beta.id]);
      const inAlpha = (await login(t, target, alpha.id)).jwt;
      const inBeta = (await login(t, target, beta.id)).jwt;
      await put(ownerJwt, target.id, []).expect(200);
      expectError(await t.http().get('/v1/users').set('authorization', inAlpha), 403, 'error_permission_denied');
      await t.http().get('/v1/users').set('authorization', inBeta).expect(200);
    });

    it('the caller’s own credential follows when it changes its own permissions', async () => {
      const self = await member(['users:read', 'users:write', 'products:read']);
      const jwt = (await login(t, self, alpha.id)).jwt;
      await put(jwt, self.id, ['users:read', 'products:read']).expect(200);
      expectError(await put(jwt, self.id, ['users:read']), 403, 'error_permission_denied');
      await t.http().get('/v1/users').set('authorization', jwt).expect(200);
    });
  });

  describe('escalation is refused with 403 error_permission_denied, and nothing changes', () => {
    it('granting a permission the caller does not hold', async () => {
      const target = await member(['products:read']);
      for (const wanted of [['orders:write'], ['products:read', 'files:write'], ['*']]) {
        expectError(await put(managerJwt, target.id, wanted), 403, 'error_permission_denied');
      }
      expect(await permissionsOf(target.id)).toEqual(['products:read']);
    });

    it('granting itself more than it holds', async () => {
      expectError(
        await put(managerJwt, manager.id, ['users:read', 'users:write', 'orders:write']),
        403,
        'error_permission_denied',
      );
      expect(await permissionsOf(manager.id)).toEqual(['orders:read', 'products:read', 'users:read', 'users:write']);
    });

    it('stripping or altering an employee who holds more than the caller, even towards what the caller holds', async () => {
      const stronger = await member(['products:read', 'files:write']);
      for (const wanted of [[], ['products:read'], ['products:read', 'orders:read']]) {
        expectError(await put(managerJwt, stronger.id, wanted), 403, 'error_permission_denied');
      }
      expect(await permissionsOf(stronger.id)).toEqual(['files:write', 'products:read']);
      // A `*` holder is beyond everyone without `*`.
      expectError(await put(managerJwt, owner.id, ['users:read']), 403, 'error_permission_denied');
      expect(await permissionsOf(owner.id)).toEqual(['*']);
    });

    it('an API key counts with its own, narrower permissions', async () => {
      const holder = await member(['apikeys:manage', 'users:read', 'users:write', 'orders:read']);
      const jwt = (await login(t, holder, alpha.id)).jwt;
      const key = (
        await t
          .http()
          .post('/v1/apikeys')
          .set('authorization', jwt)
          .send({ name: 'k', permissions: ['users:write'] })
          .expect(201)
      ).body.api_key as string;
      const target = await member([]);
      expectError(await put(key, target.id, ['orders:read']), 403, 'error_permission_denied');
      expect((await put(key, target.id, ['users:write']).expect(200)).body.permissions).toEqual(['users:write']);
    });

    it('removing `*` from the company’s last `*` holder; with a second one, it can go', async () => {
      const [gamma] = await createCompanies(t, 'Gamma');
      const first = await member(['*'], [gamma.id]);
      const firstJwt = (await login(t, first, gamma.id)).jwt;
      expectError(await put(firstJwt, first.id, ['users:read', 'users:write']), 403, 'error_permission_denied');
      const second = await member([], [gamma.id]);
      await put(firstJwt, second.id, ['*']).expect(200);
      expect((await put(firstJwt, first.id, ['users:read']).expect(200)).body.permissions).toEqual(['users:read']);
      const secondJwt = (await login(t, second, gamma.id)).jwt;
      expectError(await put(secondJwt, second.id, []), 403, 'error_permission_denied');
    });
  });

  describe('other companies, ids and the route’s own rules', () => {
    it('an employee of another company only is 404 error_not_found, like one that does not exist', async () => {
      const outsider = await member(['products:read'], [beta.id]);
      const missing = await put(ownerJwt, 2147483647, []);
      expectError(missing, 404, 'error_not_found');
      const res = await put(ownerJwt, outsider.id, []);
      expectError(res, 404, 'error_not_found');
      expect(res.body).toEqual(missing.body);
      // Untouched in its own company.
      const betaJwt = (await login(t, owner, beta.id)).jwt;
      const betaUsers = (await t.http().get('/v1/users?per_page=100').set('authorization', betaJwt).expect(200)).body
        .data;
      expect(betaUsers.find((e: { id: number }) => e.id === outsider.id).permissions).toEqual(['products:read']);
    });

    it.each(['abc', '0', '1e3', '007', '99999999999'])('a malformed id %p is 404 error_not_found', async (id) => {
      expectError(await put(ownerJwt, id, []), 404, 'error_not_found');
    });

    it.each<[string, object]>([
      ['no permissions field', {}],
      ['permissions not an array', { permissions: 'users:read' }],
      ['an unknown permission', { permissions: ['users:read', 'users:delete'] }],
      ['a duplicate', { permissions: ['users:read', 'users:read'] }],
      ['a non-string entry', { permissions: [1] }],
    ])('400 error_validation naming permissions: %s', async (_label, body) => {
      const target = await member([]);
      const res = await t.http().put(`/v1/users/${target.id}/permissions`).set('authorization', ownerJwt).send(body);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: ['error_validation'] });
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['permissions']));
      expect(new Set(res.body.details.map((d: { field: string }) => d.field))).toEqual(new Set(['permissions']));
    });

    it('400 error_validation naming an unknown field', async () => {
      const target = await member([]);
      const res = await t
        .http()
        .put(`/v1/users/${target.id}/permissions`)
        .set('authorization', ownerJwt)
        .send({ permissions: [], company_id: beta.id });
      expect({
        status: res.status,
        error: res.body.error,
        fields: res.body.details.map((d: { field: string }) => d.field),
      }).toEqual({
        status: 400,
        error: ['error_validation'],
        fields: ['company_id'],
      });
    });

    it('401 without a credential; 403 without users:write', async () => {
      const target = await member([]);
      expectError(
        await t.http().put(`/v1/users/${target.id}/permissions`).send({ permissions: [] }),
        401,
        'error_jwt_is_required',
      );
      const readerJwt = (await login(t, await member(['users:read']), alpha.id)).jwt;
      expectError(await put(readerJwt, target.id, []), 403, 'error_permission_denied');
    });
  });
});
