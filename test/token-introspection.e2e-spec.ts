import { ManualClock } from './support/manual-clock';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError, expectInvalid } from './support/expectations';

const DAY_MS = 86_400_000;

/** POST /v1/tokens/introspect (RFC 7662): docs/contract.md "Other systems plug in". */
describe('token introspection', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let beta: { id: number };
  let service: Account;
  let introspector: string;
  let person: Account;

  const introspect = (token: unknown, credential = introspector) =>
    t.http().post('/v1/tokens/introspect').set('authorization', credential).send({ token });

  async function apiKey(account: Account, companyId: number, permissions: string[]): Promise<string> {
    const jwt = (await login(t, account, companyId)).jwt;
    const res = await authed(t, jwt).post('/v1/apikeys', { name: 'service', permissions }).expect(201);
    return res.body.api_key as string;
  }

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T08:00:00Z');
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    service = await createAccount(t, [alpha.id, beta.id], ['tokens:introspect', 'apikeys:manage']);
    introspector = await apiKey(service, alpha.id, ['tokens:introspect']);
    person = await createAccount(t, [alpha.id, beta.id], ['users:read', 'products:read', 'apikeys:manage']);
  });
  afterAll(() => t.close());

  it('a live JWT of the company: active, with its owner, session, permissions and times; no-store', async () => {
    const session = await login(t, person, alpha.id);
    const res = await introspect(session.jwt).expect(200);
    const claims = JSON.parse(Buffer.from(session.jwt.split('.')[1], 'base64url').toString());
    expect(res.body).toEqual({
      active: true,
      token_type: 'jwt',
      sub: String(person.id),
      company_id: alpha.id,
      sid: session.session_id,
      scope: 'apikeys:manage products:read users:read',
      iat: claims.iat,
      exp: claims.exp,
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('a live API key: active, api_key, its effective permissions, no sid and no exp (keys do not expire)', async () => {
    const key = await apiKey(person, alpha.id, ['users:read']);
    const res = await introspect(key).expect(200);
    expect(res.body).toEqual({
      active: true,
      token_type: 'api_key',
      sub: String(person.id),
      company_id: alpha.id,
      scope: 'users:read',
      iat: Math.floor(clock.nowMs() / 1000),
    });
  });

  it('the same as a form body (application/x-www-form-urlencoded), as OAuth clients send it', async () => {
    const session = await login(t, person, alpha.id);
    const res = await t
      .http()
      .post('/v1/tokens/introspect')
      .set('authorization', introspector)
      .set('content-type', 'application/x-www-form-urlencoded')
      .send(`token=${encodeURIComponent(session.jwt)}&token_type_hint=access_token`)
      .expect(200);
    expect(res.body).toMatchObject({ active: true, token_type: 'jwt', sid: session.session_id });
    // Other routes keep refusing a form body.
    const elsewhere = await t
      .http()
      .post('/v1/users/authenticateinit')
      .set('content-type', 'application/x-www-form-urlencoded')
      .send(`email=${encodeURIComponent(person.email)}&password=x`);
    expectError(elsewhere, 415, 'error_unsupported_media_type');
  });

  it('another company’s token, live, is {"active": false}', async () => {
    const inBeta = await login(t, person, beta.id);
    await authed(t, inBeta.jwt).get('/v1/users/me').expect(200);
    expect((await introspect(inBeta.jwt).expect(200)).body).toEqual({ active: false });
    const betaKey = await apiKey(person, beta.id, ['users:read']);
    expect((await introspect(betaKey).expect(200)).body).toEqual({ active: false });
  });

  it('revoked (logout), unknown, malformed, Bearer-prefixed or expired: {"active": false}', async () => {
    const session = await login(t, person, alpha.id);
    expect((await introspect(session.jwt).expect(200)).body.active).toBe(true);
    await authed(t, session.jwt).post('/v1/users/logout').expect(204);
    const [header, payload] = session.jwt.split('.');
    for (const token of [
      session.jwt,
      `Bearer ${(await login(t, person, alpha.id)).jwt}`,
      'garbage',
      'a.b.c',
      `${header}.${payload}.AAAA`,
      'ak_abcdefgh:not-a-secret',
      ':',
      ' ',
    ]) {
      expect({ token, body: (await introspect(token).expect(200)).body }).toEqual({ token, body: { active: false } });
    }
    const later = await login(t, person, alpha.id);
    expect((await introspect(later.jwt).expect(200)).body.active).toBe(true);
    clock.advance(15 * DAY_MS);
    expect((await introspect(later.jwt).expect(200)).body).toEqual({ active: false });
    clock.set('2026-11-25T08:00:00Z');
  });

  it('a login token (JWT) may not introspect, even holding the permission: 403 error_permission_denied', async () => {
    const jwt = (await login(t, service, alpha.id)).jwt;
    const res = await introspect(jwt, jwt);
    expectError(res, 403, 'error_permission_denied');
    expect(res.body.message).toMatch(/API key/);
  });

  it('an API key without tokens:introspect: 403; no credential: 401', async () => {
    const key = await apiKey(person, alpha.id, ['users:read']);
    expectError(await introspect('x', key), 403, 'error_permission_denied');
    expectError(await t.http().post('/v1/tokens/introspect').send({ token: 'x' }), 401, 'error_jwt_is_required');
  });

  it.each([
    ['no token', '{}', 'application/json', ['token']],
    ['token not a string', '{"token": 12}', 'application/json', ['token']],
    ['token null', '{"token": null}', 'application/json', ['token']],
    ['token empty', '{"token": ""}', 'application/json', ['token']],
    ['token too long', JSON.stringify({ token: 'x'.repeat(5000) }), 'application/json', ['token']],
    ['an unknown field', '{"token": "x", "client_id": "y"}', 'application/json', ['client_id']],
    ['an unknown hint', '{"token": "x", "token_type_hint": "refresh_token"}', 'application/json', ['token_type_hint']],
    ['token given twice in a form', 'token=a&token=b', 'application/x-www-form-urlencoded', ['token']],
    ['an empty form', '', 'application/x-www-form-urlencoded', ['token']],
    ['no body at all, typed JSON', undefined, 'application/json', ['token']],
    ['a JSON array', '["x"]', 'application/json', ['0', 'token']],
  ])('malformed body (%s): 400 error_validation naming the field, never a 500', async (_label, body, type, fields) => {
    let req = t.http().post('/v1/tokens/introspect').set('authorization', introspector).set('content-type', type);
    if (body !== undefined) req = req.send(body);
    expectInvalid(await req, ...fields);
  });

  it.each([
    ['malformed JSON', '{"token": ', 'application/json', 400, 'error_validation'],
    ['text/plain', 'token=x', 'text/plain', 415, 'error_unsupported_media_type'],
    ['multipart', '--b\r\n\r\n--b--', 'multipart/form-data; boundary=b', 415, 'error_unsupported_media_type'],
  ])('%s: %s %s', async (_label, body, type, status, code) => {
    let req = t.http().post('/v1/tokens/introspect').set('authorization', introspector).set('content-type', type);
    if (body !== undefined) req = req.send(body);
    expectError(await req, status, code);
  });
});
