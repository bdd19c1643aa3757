import { auditRows } from './support/audit-rows';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { expectScimError, issueScimToken, PATCH_OP, SCIM_JSON, scimClient, USER_SCHEMA } from './support/scim';
import { startTestApp, type TestApp } from './support/test-app';

/** What /scim/v2 refuses, always in SCIM's error schema and never with a 500; the token's lifecycle; the last owner. */
describe('SCIM 2.0 refusals and tokens', () => {
  let t: TestApp;
  let company: { id: number };
  let other: { id: number };
  let owner: Account;
  let ownerJwt: string;
  let token: string;
  let scim: ReturnType<typeof scimClient>;
  let memberId: number;

  beforeAll(async () => {
    t = await startTestApp();
    [company, other] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await createAccount(t, [company.id], ['*']);
    ownerJwt = (await login(t, owner, company.id)).jwt;
    token = (await issueScimToken(t, ownerJwt)).token;
    scim = scimClient(t, token);
    memberId = Number(
      (await scim.post('/Users', { schemas: [USER_SCHEMA], userName: `m-${process.pid}@example.test` }).expect(201))
        .body.id,
    );
  });
  afterAll(() => t?.close());

  const raw = (method: 'post' | 'put' | 'patch', path: string, body: string, type = SCIM_JSON) =>
    t.http()[method](`/scim/v2${path}`).set('authorization', `Bearer ${token}`).set('content-type', type).send(body);

  it('malformed JSON, a wrong content type, an empty body: 400 / 415 in SCIM form', async () => {
    expectScimError(await raw('post', '/Users', '{"userName": '), 400, 'invalidSyntax');
    expectScimError(await raw('patch', `/Users/${memberId}`, '{"Operations": [}'), 400, 'invalidSyntax');
    expectScimError(await raw('post', '/Users', 'userName=a', 'text/plain'), 415);
    expectScimError(await raw('put', `/Users/${memberId}`, '<User/>', 'application/xml'), 415);
    expectScimError(await raw('post', '/Users', '', SCIM_JSON), 400, 'invalidSyntax');
    // Plain JSON is accepted too; scim+json is refused outside /scim.
    await raw(
      'post',
      '/Users',
      JSON.stringify({ userName: `json-${process.pid}@example.test` }),
      'application/json',
    ).expect(201);
    expectError(
      await t.http().post('/v1/scim/tokens').set('authorization', ownerJwt).set('content-type', SCIM_JSON).send('{}'),
      415,
      'error_unsupported_media_type',
    );
  });

  it('bodies of the wrong shape: 400 with a scimType', async () => {
    const cases: Array<[() => Promise<{ status: number; body: unknown; headers: Record<string, string> }>, string]> = [
      [() => scim.post('/Users', []), 'invalidSyntax'],
      [() => scim.post('/Users', 'just a string'), 'invalidSyntax'],
      [() => scim.post('/Users', { schemas: [USER_SCHEMA] }), 'invalidValue'],
      [() => scim.post('/Users', { userName: 'not-an-email' }), 'invalidValue'],
      [() => scim.post('/Users', { userName: 'a@example.test', active: 'perhaps' }), 'invalidValue'],
      [() => scim.post('/Users', { userName: 'a@example.test', name: 'Ann' }), 'invalidValue'],
      [() => scim.post('/Users', { userName: 'a@example.test', schemas: ['urn:x'] }), 'invalidSyntax'],
      [() => scim.put(`/Users/${memberId}`, { active: false }), 'invalidValue'],
      [() => scim.patch(`/Users/${memberId}`, {}), 'invalidSyntax'],
      [() => scim.patch(`/Users/${memberId}`, { schemas: [PATCH_OP], Operations: [] }), 'invalidSyntax'],
      [() => scim.patch(`/Users/${memberId}`, { Operations: [{ op: 'copy', path: 'active' }] }), 'invalidSyntax'],
      [
        () => scim.patch(`/Users/${memberId}`, { Operations: [{ op: 'replace', path: 'a..b', value: 1 }] }),
        'invalidPath',
      ],
      [
        () => scim.patch(`/Users/${memberId}`, { Operations: [{ op: 'replace', path: 'active', value: 'no' }] }),
        'invalidValue',
      ],
      [() => scim.patch(`/Users/${memberId}`, { Operations: [{ op: 'remove' }] }), 'noTarget'],
      [() => scim.patch(`/Users/${memberId}`, { Operations: [{ op: 'replace', value: [1] }] }), 'invalidSyntax'],
    ];
    for (const [send, scimType] of cases) expectScimError(await send(), 400, scimType);
    // Nothing changed.
    expect((await scim.get(`/Users/${memberId}`).expect(200)).body.active).toBe(true);
  });

  it('filters other than userName eq "…": 400 invalidFilter; bad paging numbers: 400', async () => {
    for (const filter of [
      'userName sw "m"',
      'emails.value eq "a@example.test"',
      'externalId eq "x"',
      'userName eq "a" or userName eq "b"',
      'userName eq a',
      'userName eq "',
      '"',
      'userName eq "a"]',
      // NUL and unpaired surrogates, once the JSON escapes are undone (docs/contract.md: refused like every
      // other input; a NUL used to reach PostgreSQL and answer 500).
      'userName eq "a\\u0000b@example.test"',
      'userName eq "\\u0000"',
      'userName eq "\\ud800@example.test"',
      'userName eq "x\\udc00"',
    ]) {
      expectScimError(await scim.get(`/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
    }
    expectScimError(await scim.get('/Users?filter=a&filter=b'), 400, 'invalidFilter');
    expectScimError(await scim.get('/Users?startIndex=abc'), 400, 'invalidValue');
    expectScimError(await scim.get('/Users?count=1.5'), 400, 'invalidValue');
    // Out-of-range numbers are read as the RFC says, not refused.
    const res = await scim.get('/Users?startIndex=0&count=-4').expect(200);
    expect(res.body).toMatchObject({ startIndex: 1, itemsPerPage: 0 });
  });

  it('unknown ids and paths: 404; NUL and deep nesting: 400; all SCIM-shaped', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1e3']) expectScimError(await scim.get(`/Users/${id}`), 404);
    expectScimError(await scim.put('/Users/999999', { userName: 'x@example.test' }), 404);
    expectScimError(
      await scim.patch('/Users/999999', { Operations: [{ op: 'replace', value: { active: false } }] }),
      404,
    );
    expectScimError(await scim.get('/Bulk'), 404);
    expectScimError(await scim.get('/'), 404);
    expectScimError(await scim.post('/Users', { userName: 'nul\u0000@example.test' }), 400, 'invalidValue');
    let deep: unknown = 'x';
    for (let depth = 0; depth < 200; depth++) deep = { a: deep };
    expectScimError(await scim.post('/Users', { userName: 'deep@example.test', deep }), 400, 'invalidValue');
  });

  it('a member of another company is not found by this token', async () => {
    const outsider = await createAccount(t, [other.id], ['users:read']);
    expectScimError(await scim.get(`/Users/${outsider.id}`), 404);
    expectScimError(await scim.delete(`/Users/${outsider.id}`), 404);
    expect(
      (await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${outsider.email}"`)}`)).body.totalResults,
    ).toBe(0);
  });

  it('the last active `*` holder can be neither suspended nor removed: 409', async () => {
    const deactivate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] };
    expectScimError(await scim.patch(`/Users/${owner.id}`, deactivate), 409);
    expectScimError(await scim.put(`/Users/${owner.id}`, { userName: owner.email, active: 'False' }), 409);
    expectScimError(await scim.delete(`/Users/${owner.id}`), 409);
    await authed(t, ownerJwt).get('/v1/users').expect(200);

    // With a second holder, one can go; the other is then the last.
    const second = await createAccount(t, [company.id], ['*']);
    await scim.patch(`/Users/${second.id}`, deactivate).expect(200);
    expectScimError(await scim.patch(`/Users/${owner.id}`, deactivate), 409);
    // A suspended `*` holder is not counted, and removing it leaves the active one as it is.
    await scim.delete(`/Users/${second.id}`).expect(204);
    expectScimError(await scim.delete(`/Users/${owner.id}`), 409);
    // DELETE /v1/users does not count a suspended holder either.
    const third = await createAccount(t, [company.id], ['*']);
    await scim.patch(`/Users/${third.id}`, deactivate).expect(200);
    expectError(
      await authed(t, ownerJwt).put(`/v1/users/${owner.id}/permissions`, { permissions: ['users:read'] }),
      403,
      'error_permission_denied',
    );
  });

  it('tokens: 401 without, with a wrong or a raw (no Bearer) token; listed without the token; deleted → refused', async () => {
    expectScimError(await t.http().get('/scim/v2/Users'), 401);
    expect((await t.http().get('/scim/v2/Users')).headers['www-authenticate']).toMatch(/^Bearer/);
    expectScimError(await t.http().get('/scim/v2/Users').set('authorization', 'Bearer scim_nope'), 401);
    expectScimError(await t.http().get('/scim/v2/Users').set('authorization', token), 401);
    expectScimError(await t.http().get('/scim/v2/Users').set('authorization', `Bearer ${ownerJwt}`), 401);
    // A SCIM token is no credential for /v1, and a JWT none for /scim.
    expectError(await authed(t, `Bearer ${token}`).get('/v1/users'), 401, 'error_jwt_hash_not_found');
    expectError(await authed(t, token).get('/v1/users'), 401, 'error_jwt_hash_not_found');

    const issued = await issueScimToken(t, ownerJwt, 'Entra');
    const listed = await authed(t, ownerJwt).get('/v1/scim/tokens').expect(200);
    expect(listed.body.data).toContainEqual({
      id: issued.id,
      name: 'Entra',
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(issued.token);
    await scimClient(t, issued.token).get('/Users').expect(200);
    const used = await authed(t, ownerJwt).get('/v1/scim/tokens').expect(200);
    expect(used.body.data.find((row: { id: string }) => row.id === issued.id).last_used_at).toEqual(expect.any(String));

    await authed(t, ownerJwt).delete(`/v1/scim/tokens/${issued.id}`).expect(204);
    expectScimError(await scimClient(t, issued.token).get('/Users'), 401);
    expectError(await authed(t, ownerJwt).delete(`/v1/scim/tokens/${issued.id}`), 404, 'error_not_found');
    expectError(await authed(t, ownerJwt).delete('/v1/scim/tokens/not-a-uuid'), 404, 'error_not_found');
    expect(await auditRows(t, company.id, 'apikey.revoked')).toContainEqual(
      expect.objectContaining({ subject_id: issued.id, details: { name: 'Entra', scim: true } }),
    );

    // sso:manage and a JWT are needed; another company's token is not found.
    const plain = await createAccount(t, [company.id, other.id], ['users:read']);
    const plainJwt = (await login(t, plain, company.id)).jwt;
    expectError(await authed(t, plainJwt).post('/v1/scim/tokens', {}), 403, 'error_permission_denied');
    const otherOwner = await createAccount(t, [other.id], ['*']);
    const otherJwt = (await login(t, otherOwner, other.id)).jwt;
    const otherToken = await issueScimToken(t, otherJwt);
    expectError(await authed(t, ownerJwt).delete(`/v1/scim/tokens/${otherToken.id}`), 404, 'error_not_found');
    expectInvalid(await authed(t, ownerJwt).post('/v1/scim/tokens', { name: ' ' }), 'name');
  });

  it('none of the above was a 500 (no unhandled error logged)', () => {
    expect(t.logs.text).not.toContain('unhandled error');
  });
});
