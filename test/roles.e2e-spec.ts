import { DataSource } from 'typeorm';
import { ManualClock } from './support/manual-clock';
import type { Grant } from '../src/access/permissions/permission';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError, expectInvalid } from './support/expectations';

/** /v1/roles and `roles` on PUT /v1/users/{id}/permissions: docs/contract.md "Company policies and roles". */
describe('roles', () => {
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let ownerJwt: string;
  let betaOwnerJwt: string;
  /** users:read + users:write + orders:read in alpha. */
  let managerJwt: string;

  const as = (credential: string) => authed(t, credential);
  const member = (permissions: Grant[], companies = [alpha.id]) => createAccount(t, companies, permissions);
  const createRole = async (jwt: string, name: string, permissions: Grant[]) =>
    (await as(jwt).post('/v1/roles', { name, permissions }).expect(201)).body as { id: number; name: string };
  const setAccess = (jwt: string, id: number, body: { permissions: Grant[]; roles?: unknown }) =>
    as(jwt).put(`/v1/users/${id}/permissions`, body);
  const listed = async (employeeId: number) => {
    const res = await as(ownerJwt).get('/v1/users?per_page=100').expect(200);
    return res.body.data.find((e: { id: number }) => e.id === employeeId);
  };
  const rows = (sql: string, params: unknown[]) => t.app.get(DataSource).query(sql, params);
  const events = async (type: string) =>
    (await as(ownerJwt).get(`/v1/auditevents?type=${type}`).expect(200)).body.data as Array<{
      subject: { kind: string; id: number };
      details: Record<string, unknown>;
    }>;

  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock('2026-11-21T03:00:00Z') });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    ownerJwt = (await login(t, await member(['*']), alpha.id)).jwt;
    betaOwnerJwt = (await login(t, await member(['*'], [beta.id]), beta.id)).jwt;
    managerJwt = (await login(t, await member(['users:read', 'users:write', 'orders:read']), alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  it('creates, lists, renames and deletes a role, recording role.created, role.changed and role.deleted', async () => {
    const created = await as(ownerJwt).post('/v1/roles', {
      name: ' Support ',
      permissions: ['users:read', 'orders:read'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Support',
      permissions: ['orders:read', 'users:read'],
      holders: 0,
      created_at: '2026-11-21T03:00:00.000Z',
      updated_at: '2026-11-21T03:00:00.000Z',
    });
    const id = created.body.id as number;
    const list = (await as(ownerJwt).get('/v1/roles?per_page=100').expect(200)).body;
    expect(list.data).toContainEqual(created.body);
    // Beta sees none of alpha's roles.
    expect((await as(betaOwnerJwt).get('/v1/roles').expect(200)).body).toEqual({
      data: [],
      page: 1,
      per_page: 20,
      total: 0,
    });

    const renamed = await as(ownerJwt)
      .put(`/v1/roles/${id}`, { name: 'Helpdesk', permissions: ['users:read'] })
      .expect(200);
    expect(renamed.body).toMatchObject({ id, name: 'Helpdesk', permissions: ['users:read'], holders: 0 });
    await as(ownerJwt).delete(`/v1/roles/${id}`).expect(204);
    expect((await as(ownerJwt).get('/v1/roles?per_page=100').expect(200)).body.data).not.toContainEqual(
      expect.objectContaining({ id }),
    );
    const subject = { kind: 'role', id, email: null };
    expect(await events('role.created')).toContainEqual(
      expect.objectContaining({ subject, details: { name: 'Support', permissions: ['orders:read', 'users:read'] } }),
    );
    expect(await events('role.changed')).toContainEqual(
      expect.objectContaining({
        subject,
        details: {
          before: { name: 'Support', permissions: ['orders:read', 'users:read'] },
          after: { name: 'Helpdesk', permissions: ['users:read'] },
        },
      }),
    );
    expect(await events('role.deleted')).toContainEqual(
      expect.objectContaining({ subject, details: { name: 'Helpdesk', permissions: ['users:read'] } }),
    );
  });

  it('refuses a role with permissions the caller lacks (403) and creates nothing', async () => {
    const before = (await as(ownerJwt).get('/v1/roles?per_page=100').expect(200)).body.total;
    expectError(
      await as(managerJwt).post('/v1/roles', { name: 'Escalate', permissions: ['users:read', 'apikeys:manage'] }),
      403,
      'error_permission_denied',
    );
    expectError(
      await as(managerJwt).post('/v1/roles', { name: 'Owner', permissions: ['*'] }),
      403,
      'error_permission_denied',
    );
    expect((await as(ownerJwt).get('/v1/roles?per_page=100').expect(200)).body.total).toBe(before);
    // Within what it holds, the manager may.
    await createRole(managerJwt, 'Readers', ['orders:read']);
  });

  it('refuses a name taken in the company (any case) with 409, but another company may use it', async () => {
    const first = await createRole(ownerJwt, 'Auditors', ['auditevents:read']);
    expectError(await as(ownerJwt).post('/v1/roles', { name: 'AUDITORS', permissions: [] }), 409, 'error_conflict');
    const other = await createRole(ownerJwt, 'Auditors 2', []);
    expectError(
      await as(ownerJwt).put(`/v1/roles/${other.id}`, { name: 'auditors', permissions: [] }),
      409,
      'error_conflict',
    );
    await createRole(betaOwnerJwt, 'Auditors', []);
    expect(first.name).toBe('Auditors');
  });

  it("refuses bad input with 400 naming the field, and unknown or other companies' roles with 404", async () => {
    expectInvalid(await as(ownerJwt).post('/v1/roles', { name: '', permissions: [] }), 'name');
    expectInvalid(await as(ownerJwt).post('/v1/roles', { name: 'X', permissions: ['nope'] }), 'permissions');
    expectInvalid(await as(ownerJwt).post('/v1/roles', { permissions: [] }), 'name');
    const betaRole = await createRole(betaOwnerJwt, 'Beta only', []);
    for (const id of [betaRole.id, 999999, 'abc']) {
      expectError(
        await as(ownerJwt).put(`/v1/roles/${id}`, { name: 'Taken over', permissions: [] }),
        404,
        'error_not_found',
      );
      expectError(await as(ownerJwt).delete(`/v1/roles/${id}`), 404, 'error_not_found');
    }
    expect((await as(betaOwnerJwt).get('/v1/roles?per_page=100').expect(200)).body.data).toContainEqual(
      expect.objectContaining({ id: betaRole.id, name: 'Beta only' }),
    );
  });

  it("a member holds its own permissions and its roles': GET /v1/users and /me show both, and the roles", async () => {
    const role = await createRole(ownerJwt, 'Order desk', ['orders:read', 'orders:write']);
    const target: Account = await member(['users:read']);
    const res = await setAccess(ownerJwt, target.id, { permissions: ['users:read'], roles: [role.id] }).expect(200);
    const roles = [{ id: role.id, name: 'Order desk' }];
    expect(res.body).toEqual({
      id: target.id,
      email: target.email,
      name: expect.any(String),
      permissions: ['orders:read', 'orders:write', 'users:read'],
      roles,
    });
    expect(await listed(target.id)).toEqual({ ...res.body, mfa: false });
    const jwt = (await login(t, target, alpha.id)).jwt;
    const me = (await as(jwt).get('/v1/users/me').expect(200)).body;
    expect({ permissions: me.permissions, roles: me.roles }).toEqual({ permissions: res.body.permissions, roles });
    await as(jwt).get('/v1/orders').expect(200);

    // Leaving `roles` out keeps them; an empty list takes them away.
    expect((await setAccess(ownerJwt, target.id, { permissions: [] }).expect(200)).body.roles).toEqual(roles);
    const taken = await setAccess(ownerJwt, target.id, { permissions: [], roles: [] }).expect(200);
    expect({ permissions: taken.body.permissions, roles: taken.body.roles }).toEqual({ permissions: [], roles: [] });
    expectError(await as(jwt).get('/v1/orders'), 403, 'error_permission_denied');
    const changed = await events('permissions.changed');
    expect(changed).toContainEqual(
      expect.objectContaining({
        subject: { kind: 'employee', id: target.id, email: target.email },
        details: { before: [], after: [], roles_before: [role.id], roles_after: [] },
      }),
    );
  });

  it('refuses a role id of another company (or of none) with 400, and changes nothing', async () => {
    const mine = await createRole(ownerJwt, 'Mine', ['products:read']);
    const theirs = await createRole(betaOwnerJwt, 'Theirs', ['*']);
    const target = await member(['orders:read']);
    await setAccess(ownerJwt, target.id, { permissions: ['orders:read'], roles: [mine.id] }).expect(200);
    for (const roles of [[theirs.id], [mine.id, theirs.id], [2147483647], [0], ['1'], 'x']) {
      const res = await setAccess(ownerJwt, target.id, { permissions: ['users:read'], roles });
      expectInvalid(res, 'roles');
    }
    expect(await listed(target.id)).toMatchObject({
      permissions: ['orders:read', 'products:read'],
      roles: [{ id: mine.id, name: 'Mine' }],
    });
    expect(await rows('SELECT role_id FROM member_role WHERE employee_id = $1', [target.id])).toEqual([
      { role_id: mine.id },
    ]);
    // Even a statement that forgot to check could not: the keys tie a holder to a role of its own company.
    await expect(
      rows('INSERT INTO member_role (employee_id, company_id, role_id) VALUES ($1, $2, $3)', [
        target.id,
        alpha.id,
        theirs.id,
      ]),
    ).rejects.toThrow();
  });

  it('grants only roles whose permissions the caller holds, and never changes someone who holds more', async () => {
    const wide = await createRole(ownerJwt, 'Wide', ['users:read', 'apikeys:manage']);
    const narrow = await createRole(ownerJwt, 'Narrow', ['orders:read']);
    const target = await member([]);
    expectError(
      await setAccess(managerJwt, target.id, { permissions: [], roles: [wide.id] }),
      403,
      'error_permission_denied',
    );
    await setAccess(managerJwt, target.id, { permissions: [], roles: [narrow.id] }).expect(200);
    // Once the owner gives the target the wide role, the manager may no longer touch the target.
    await setAccess(ownerJwt, target.id, { permissions: [], roles: [narrow.id, wide.id] }).expect(200);
    expectError(await setAccess(managerJwt, target.id, { permissions: [], roles: [] }), 403, 'error_permission_denied');
    // Nor change or delete the wide role itself.
    expectError(
      await as(managerJwt).put(`/v1/roles/${wide.id}`, { name: 'Wide', permissions: [] }),
      403,
      'error_permission_denied',
    );
    expect((await listed(target.id)).roles).toEqual(
      [
        { id: wide.id, name: 'Wide' },
        { id: narrow.id, name: 'Narrow' },
      ].sort((a, b) => a.id - b.id),
    );
  });

  it('DELETE answers 409 while members hold the role, and 204 once nobody does', async () => {
    const role = await createRole(ownerJwt, 'Held', ['orders:read']);
    const target = await member([]);
    await setAccess(ownerJwt, target.id, { permissions: [], roles: [role.id] }).expect(200);
    expectError(await as(ownerJwt).delete(`/v1/roles/${role.id}`), 409, 'error_conflict');
    expect((await listed(target.id)).roles).toEqual([{ id: role.id, name: 'Held' }]);
    await setAccess(ownerJwt, target.id, { permissions: [], roles: [] }).expect(200);
    await as(ownerJwt).delete(`/v1/roles/${role.id}`).expect(204);
  });

  it("a role change reaches the holders' cached JWTs and API keys on the very next request", async () => {
    const role = await createRole(ownerJwt, 'Staff readers', ['users:read', 'apikeys:manage']);
    const target = await member([]);
    await setAccess(ownerJwt, target.id, { permissions: [], roles: [role.id] }).expect(200);
    const jwt = (await login(t, target, alpha.id)).jwt;
    const key = (
      await as(jwt)
        .post('/v1/apikeys', { name: 'k', permissions: ['users:read'] })
        .expect(201)
    ).body.api_key as string;
    for (const credential of [jwt, key]) {
      await as(credential).get('/v1/users').expect(200);
      await as(credential).get('/v1/users').expect(200);
    }
    await as(ownerJwt)
      .put(`/v1/roles/${role.id}`, { name: 'Staff readers', permissions: ['apikeys:manage'] })
      .expect(200);
    for (const credential of [jwt, key])
      expectError(await as(credential).get('/v1/users'), 403, 'error_permission_denied');
    // The key is capped by its owner's effective permissions: it never had apikeys:manage, and gets none.
    expect((await as(key).get('/v1/users/me').expect(200)).body.permissions).toEqual([]);
    expect((await as(jwt).get('/v1/users/me').expect(200)).body.permissions).toEqual(['apikeys:manage']);
    await as(ownerJwt)
      .put(`/v1/roles/${role.id}`, { name: 'Staff readers', permissions: ['users:read'] })
      .expect(200);
    for (const credential of [jwt, key]) await as(credential).get('/v1/users').expect(200);
  });

  it("a `*` held through a role does not count as the company's last `*` holder", async () => {
    const [gamma] = await createCompanies(t, 'Gamma');
    const soleOwner = await member(['*'], [gamma.id]);
    const soleJwt = (await login(t, soleOwner, gamma.id)).jwt;
    const ownerRole = await createRole(soleJwt, 'Owners', ['*']);
    const other = await member([], [gamma.id]);
    await setAccess(soleJwt, other.id, { permissions: [], roles: [ownerRole.id] }).expect(200);
    expect((await authed(t, soleJwt).get('/v1/users').expect(200)).body.data).toContainEqual(
      expect.objectContaining({ id: other.id, permissions: ['*'] }),
    );
    expectError(await setAccess(soleJwt, soleOwner.id, { permissions: [] }), 403, 'error_permission_denied');
  });
});
