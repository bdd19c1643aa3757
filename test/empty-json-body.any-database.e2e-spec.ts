import { expectError, expectInvalid } from './support/expectations';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { expectScimError, issueScimToken, SCIM_JSON, scimClient, USER_SCHEMA } from './support/scim';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md "Whose people a company may speak for", Bodies: a JSON content type with an empty body is a
 * request without a body. SCIM clients send the header on DELETE; `curl -H 'content-type: application/json' -X
 * POST …/logout` is how people log out from a shell. Before, both answered 400 "not valid JSON".
 */
describe('a JSON content type with an empty body', () => {
  let t: TestApp;
  let company: { id: number };
  let ownerJwt: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    [company] = await createCompanies(t, 'Bodies');
    const owner = await createAccount(t, [company.id], ['*']);
    ownerJwt = (await login(t, owner, company.id)).jwt;
    token = (await issueScimToken(t, ownerJwt)).token;
  });
  afterAll(() => t?.close());

  it.each(['application/json', 'application/json; charset=utf-8'])(
    'logs out with Content-Type %s and no body (as curl -X POST -H sends it)',
    async (type) => {
      const owner = await createAccount(t, [company.id], ['products:read']);
      const { jwt } = await login(t, owner, company.id);
      await t.http().post('/v1/users/logout').set('authorization', jwt).set('content-type', type).expect(204);
      expectError(await authed(t, jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    },
  );

  it('logs out with Content-Length: 0 said out loud', async () => {
    const owner = await createAccount(t, [company.id], ['products:read']);
    const { jwt } = await login(t, owner, company.id);
    await t
      .http()
      .post('/v1/users/logout')
      .set('authorization', jwt)
      .set('content-type', 'application/json')
      .set('content-length', '0')
      .expect(204);
  });

  it('SCIM DELETE with application/scim+json (or application/json) and no body removes the member', async () => {
    const scim = scimClient(t, token);
    for (const type of [SCIM_JSON, 'application/json']) {
      const created = await scim.post('/Users', {
        schemas: [USER_SCHEMA],
        userName: `gone-${type.length}@example.test`,
      });
      expect(created.status).toBe(201);
      await scim.delete(`/Users/${created.body.id}`).set('content-type', type).expect(204);
      expectScimError(await scim.get(`/Users/${created.body.id}`), 404);
    }
  });

  it('a route that needs a body answers 400 error_validation naming the missing fields', async () => {
    const res = await t.http().post('/v1/users/authenticateinit').set('content-type', 'application/json');
    expectInvalid(res, 'email', 'password');
    const products = await t
      .http()
      .post('/v1/products')
      .set('authorization', ownerJwt)
      .set('content-type', 'application/json');
    expect(products.status).toBe(400);
    expect(products.body.error).toEqual(['error_validation']);
    expect((products.body.details as Array<{ field: string }>).map((detail) => detail.field)).toContain('name');
    // SCIM's own: the body is missing, in SCIM's error schema.
    expectScimError(
      await t.http().post('/scim/v2/Users').set('authorization', `Bearer ${token}`).set('content-type', SCIM_JSON),
      400,
      'invalidSyntax',
    );
  });

  it('a body that is there but not JSON is still 400, and whitespace is not "no body"', async () => {
    const bad = await t.http().post('/v1/users/authenticateinit').set('content-type', 'application/json').send(' ');
    expectError(bad, 400, 'error_validation');
    const broken = await t
      .http()
      .post('/v1/users/authenticateinit')
      .set('content-type', 'application/json')
      .send('{"email":');
    expectError(broken, 400, 'error_validation');
    // scim+json stays SCIM's alone, body or none.
    expectError(
      await t.http().post('/v1/users/logout').set('authorization', ownerJwt).set('content-type', SCIM_JSON),
      415,
      'error_unsupported_media_type',
    );
  });
});
