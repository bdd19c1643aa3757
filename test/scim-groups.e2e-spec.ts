import { expectError } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { expectScimError, issueScimToken, PATCH_OP, scimClient } from './support/scim';
import { startTestApp, type TestApp } from './support/test-app';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * SCIM Groups are the company's roles (docs/contract.md "Company policies and roles"), driven with requests shaped
 * as Okta's (PUT with the full member list) and Microsoft Entra ID's (PATCH with members added and removed, `op`
 * in any case, remove by path filter) guides describe them.
 */
describe('SCIM Groups', () => {
  let t: TestApp;
  let company: { id: number };
  let other: { id: number };
  let ownerJwt: string;
  let scim: ReturnType<typeof scimClient>;
  let ann: Account;
  let bob: Account;

  const member = (permissions: string[] = []) => createAccount(t, [company.id], permissions as never[]);
  const filterFor = (name: string) => `/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`;
  const memberIds = (group: { members?: Array<{ value: string }> }) => (group.members ?? []).map((m) => m.value).sort();
  const role = async (id: string) =>
    (await authed(t, ownerJwt).get('/v1/roles?per_page=100').expect(200)).body.data.find(
      (r: { id: number }) => r.id === Number(id),
    );
  const rolesOf = async (employeeId: number) =>
    (await authed(t, ownerJwt).get('/v1/users?per_page=100').expect(200)).body.data.find(
      (e: { id: number }) => e.id === employeeId,
    ).roles;

  beforeAll(async () => {
    t = await startTestApp();
    [company, other] = await createCompanies(t, 'Grouped', 'Elsewhere');
    ownerJwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    scim = scimClient(t, (await issueScimToken(t, ownerJwt)).token);
    ann = await member();
    bob = await member();
  });
  afterAll(() => t?.close());

  it('an Okta-shaped run: filter, POST, PUT with the full member list, GET, DELETE', async () => {
    expect((await scim.get(filterFor('Engineering')).expect(200)).body).toMatchObject({
      totalResults: 0,
      Resources: [],
    });
    const created = await scim.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Engineering', members: [] });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toMatch(/^application\/scim\+json/);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ schemas: [GROUP_SCHEMA], displayName: 'Engineering', members: [] });
    expect(created.headers.location).toMatch(new RegExp(`/scim/v2/Groups/${id}$`));
    // A group pushed by a directory is a role with no permissions.
    expect(await role(id)).toMatchObject({ name: 'Engineering', permissions: [], holders: 0 });

    const full = {
      schemas: [GROUP_SCHEMA],
      id,
      displayName: 'Engineering',
      members: [{ value: String(ann.id) }, { value: String(bob.id), display: bob.email }],
    };
    const put = await scim.put(`/Groups/${id}`, full).expect(200);
    expect(memberIds(put.body)).toEqual([String(ann.id), String(bob.id)].sort());
    expect(put.body.members).toContainEqual({
      value: String(ann.id),
      display: ann.email,
      $ref: expect.stringMatching(new RegExp(`/Users/${ann.id}$`)),
      type: 'User',
    });
    expect(await rolesOf(ann.id)).toEqual([{ id: Number(id), name: 'Engineering' }]);

    const found = (await scim.get(filterFor('engineering')).expect(200)).body;
    expect(found.totalResults).toBe(1);
    expect((await scim.get(`${filterFor('Engineering')}&count=0`).expect(200)).body).toMatchObject({
      totalResults: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    expect(found.Resources[0].id).toBe(id);
    await scim
      .put(`/Groups/${id}`, { ...full, displayName: 'Engineers', members: [{ value: String(bob.id) }] })
      .expect(200);
    const got = (await scim.get(`/Groups/${id}`).expect(200)).body;
    expect({ name: got.displayName, members: memberIds(got) }).toEqual({
      name: 'Engineers',
      members: [String(bob.id)],
    });
    expect(await rolesOf(ann.id)).toEqual([]);

    await scim.delete(`/Groups/${id}`).expect(204);
    expectScimError(await scim.get(`/Groups/${id}`), 404);
    expect(await rolesOf(bob.id)).toEqual([]);
    expect(await role(id)).toBeUndefined();
  });

  it('an Entra-shaped run: POST, PATCH "Add" members, "Remove" by path filter, "Replace" displayName', async () => {
    const created = await scim
      .post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Sales', externalId: 'e-1' })
      .expect(201);
    const id = created.body.id as string;
    const patch = (Operations: unknown[]) => scim.patch(`/Groups/${id}`, { schemas: [PATCH_OP], Operations });
    await patch([{ op: 'Add', path: 'members', value: [{ value: String(ann.id) }, { value: String(bob.id) }] }]).expect(
      200,
    );
    expect(memberIds((await scim.get(`/Groups/${id}`).expect(200)).body)).toEqual(
      [String(ann.id), String(bob.id)].sort(),
    );
    await patch([{ op: 'Remove', path: `members[value eq "${ann.id}"]` }]).expect(200);
    await patch([
      { op: 'remove', path: 'members', value: [{ value: String(bob.id) }] },
      { op: 'ADD', path: 'members', value: [{ value: String(ann.id) }] },
    ]).expect(200);
    const res = await patch([{ op: 'Replace', path: 'displayName', value: 'Sales EMEA' }]).expect(200);
    expect({ name: res.body.displayName, members: memberIds(res.body) }).toEqual({
      name: 'Sales EMEA',
      members: [String(ann.id)],
    });
    // Okta renames with a value object and no path.
    await patch([{ op: 'replace', value: { id, displayName: 'Sales' } }]).expect(200);
    // Entra looks groups up without their members.
    const lookedUp = (await scim.get(`${filterFor('Sales')}&excludedAttributes=members`).expect(200)).body;
    expect(lookedUp.Resources[0]).not.toHaveProperty('members');
    expect(await rolesOf(ann.id)).toEqual([{ id: Number(id), name: 'Sales' }]);
  });

  it("a member added to a group gets the role's permissions on its cached token at once, and loses them on removal", async () => {
    const holder = await member();
    const jwt = (await login(t, holder, company.id)).jwt;
    const id = (await scim.post('/Groups', { displayName: 'Order desk' }).expect(201)).body.id as string;
    await authed(t, ownerJwt)
      .put(`/v1/roles/${id}`, { name: 'Order desk', permissions: ['orders:read'] })
      .expect(200);
    expectError(await authed(t, jwt).get('/v1/orders'), 403, 'error_permission_denied');
    await scim
      .patch(`/Groups/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'add', path: 'members', value: [{ value: String(holder.id) }] }],
      })
      .expect(200);
    await authed(t, jwt).get('/v1/orders').expect(200);
    expect((await authed(t, jwt).get('/v1/users/me').expect(200)).body).toMatchObject({
      permissions: ['orders:read'],
      roles: [{ id: Number(id), name: 'Order desk' }],
    });
    await scim
      .patch(`/Groups/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'remove', path: `members[value eq "${holder.id}"]` }],
      })
      .expect(200);
    expectError(await authed(t, jwt).get('/v1/orders'), 403, 'error_permission_denied');
  });

  it("cannot grant beyond its token's cap: groups holding what the token lacks are neither filled, emptied, renamed nor deleted", async () => {
    // The token's creator holds `*` when creating it, then only users:read and users:write: the token is capped.
    const admin = await member(['*']);
    const adminJwt = (await login(t, admin, company.id)).jwt;
    const capped = scimClient(t, (await issueScimToken(t, adminJwt, 'capped')).token);
    await authed(t, ownerJwt)
      .put(`/v1/users/${admin.id}/permissions`, { permissions: ['users:read', 'users:write'] })
      .expect(200);

    const wide = (await scim.post('/Groups', { displayName: 'Wide', members: [{ value: String(bob.id) }] }).expect(201))
      .body.id as string;
    await authed(t, ownerJwt)
      .put(`/v1/roles/${wide}`, { name: 'Wide', permissions: ['users:read', 'orders:write'] })
      .expect(200);
    const add = {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: String(ann.id) }] }],
    };
    expectScimError(await capped.patch(`/Groups/${wide}`, add), 403);
    expectScimError(await capped.put(`/Groups/${wide}`, { displayName: 'Wide', members: [] }), 403);
    expectScimError(
      await capped.put(`/Groups/${wide}`, { displayName: 'Renamed', members: [{ value: String(bob.id) }] }),
      403,
    );
    expectScimError(await capped.delete(`/Groups/${wide}`), 403);
    const after = (await scim.get(`/Groups/${wide}`).expect(200)).body;
    expect({ name: after.displayName, members: memberIds(after) }).toEqual({ name: 'Wide', members: [String(bob.id)] });

    // Within its cap it may: a group of users:read only, and a new (empty) group.
    const narrow = (await capped.post('/Groups', { displayName: 'Narrow' }).expect(201)).body.id as string;
    await authed(t, ownerJwt)
      .put(`/v1/roles/${narrow}`, { name: 'Narrow', permissions: ['users:read'] })
      .expect(200);
    await capped.patch(`/Groups/${narrow}`, add).expect(200);
    expect(await rolesOf(ann.id)).toContainEqual({ id: Number(narrow), name: 'Narrow' });
  });

  it("refuses bad requests in SCIM's error schema and changes nothing", async () => {
    const outsider = await createAccount(t, [other.id], []);
    const id = (await scim.post('/Groups', { displayName: 'Strict', members: [{ value: String(ann.id) }] }).expect(201))
      .body.id as string;
    expectScimError(await scim.post('/Groups', { displayName: 'STRICT' }), 409, 'uniqueness');
    expectScimError(
      await scim.post('/Groups', { displayName: 'With outsider', members: [{ value: String(outsider.id) }] }),
      400,
      'invalidValue',
    );
    expect((await scim.get(filterFor('With outsider')).expect(200)).body.totalResults).toBe(0);
    const addOutsider = {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: String(bob.id) }, { value: String(outsider.id) }] }],
    };
    expectScimError(await scim.patch(`/Groups/${id}`, addOutsider), 400, 'invalidValue');
    expectScimError(
      await scim.patch(`/Groups/${id}`, { Operations: [{ op: 'move', path: 'members' }] }),
      400,
      'invalidSyntax',
    );
    expectScimError(
      await scim.patch(`/Groups/${id}`, { Operations: [{ op: 'remove', path: 'displayName' }] }),
      400,
      'mutability',
    );
    expectScimError(await scim.post('/Groups', { displayName: '' }), 400, 'invalidValue');
    expectScimError(await scim.post('/Groups', { displayName: 'X', members: [{ value: 'abc' }] }), 400, 'invalidValue');
    expectScimError(await scim.get(`/Groups?filter=${encodeURIComponent('members eq "1"')}`), 400, 'invalidFilter');
    expectScimError(await scim.get('/Groups/999999'), 404);
    expectScimError(await scim.get('/Groups/abc'), 404);
    const still = (await scim.get(`/Groups/${id}`).expect(200)).body;
    expect({ name: still.displayName, members: memberIds(still) }).toEqual({
      name: 'Strict',
      members: [String(ann.id)],
    });
    // Another company's token sees none of these groups.
    const otherOwnerJwt = (await login(t, await createAccount(t, [other.id], ['*']), other.id)).jwt;
    const otherScim = scimClient(t, (await issueScimToken(t, otherOwnerJwt)).token);
    expectScimError(await otherScim.get(`/Groups/${id}`), 404);
    expectScimError(await otherScim.patch(`/Groups/${id}`, addOutsider), 404);
    expectScimError(await otherScim.delete(`/Groups/${id}`), 404);
  });

  it('discovery lists the Group resource type and schema', async () => {
    const types = (await scim.get('/ResourceTypes').expect(200)).body;
    expect(types.Resources).toContainEqual(
      expect.objectContaining({ id: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA }),
    );
    await scim.get('/ResourceTypes/Group').expect(200);
    const schema = (await scim.get(`/Schemas/${GROUP_SCHEMA}`).expect(200)).body;
    expect(schema.attributes.map((a: { name: string }) => a.name)).toEqual(['displayName', 'members']);
  });
});
