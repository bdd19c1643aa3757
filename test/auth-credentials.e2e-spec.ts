import { createHash, createHmac, createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { signEdDsa } from '../src/platform/keys/jws';
import { TEST_SIGNING_KEY } from './support/signing-keys';
import { ManualClock } from './support/manual-clock';
import { QueryCounter } from '../src/platform/database/query-counter';
import { type Account, createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import { startTestApp, TEST_ENV, type TestApp } from './support/test-app';
import { expectError } from './support/expectations';

const b64url = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function signHs256(header: object, payload: object, secret: string): string {
  const unsigned = `${b64url(header)}.${b64url(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** The kid of the test apps' HS256 secret (JwtKeyRing: the first 12 hex digits of its SHA-256). */
const hs256Kid = createHash('sha256').update(TEST_ENV.JWT_SECRET).digest('hex').slice(0, 12);

/** The credential rules of docs/contract.md, in its order, for every method. */
describe('credentials', () => {
  let t: TestApp;
  let account: Account;
  let session: LoginBody;
  let company: { id: number };

  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock('2026-11-21T03:00:00Z') });
    [company] = await createCompanies(t, 'Alpha');
    account = await createAccount(t, [company.id]);
    session = await login(t, account, company.id);
  });
  afterAll(() => t.close());

  describe('the query parameter __jwtAuthorization (refused from October 2026)', () => {
    it.each([
      ['GET without a header', 'get', false],
      ['GET with a valid header as well', 'get', true],
      ['POST without a header', 'post', false],
      ['POST with a valid header as well', 'post', true],
    ])('%s → 401 error_jwt_query_not_allowed', async (_label, method, withHeader) => {
      const path = method === 'get' ? '/v1/users/me' : '/v1/users/logout';
      let req = t.http()[method as 'get' | 'post'](`${path}?__jwtAuthorization=${encodeURIComponent(session.jwt)}`);
      if (withHeader) req = req.set('authorization', session.jwt);
      expectError(await req, 401, 'error_jwt_query_not_allowed');
      await t.http().get('/v1/users/me').set('authorization', session.jwt).expect(200);
    });

    it('refuses an API key in the query string too, and on public routes', async () => {
      expectError(
        await t.http().get('/v1/users/me?__jwtAuthorization=ak_abcdefgh:secret'),
        401,
        'error_jwt_query_not_allowed',
      );
      const res = await t
        .http()
        .post('/v1/users/authenticateinit?__jwtAuthorization=x')
        .send({ email: account.email, password: account.password });
      expectError(res, 401, 'error_jwt_query_not_allowed');
    });
  });

  it('answers a missing header on a protected route with 401 error_jwt_is_required', async () => {
    expectError(await t.http().get('/v1/users/me'), 401, 'error_jwt_is_required');
    expectError(await t.http().get('/v1/users/me').set('authorization', ''), 401, 'error_jwt_is_required');
    expectError(await t.http().delete(`/v1/users/sessions/${randomUUID()}`), 401, 'error_jwt_is_required');
  });

  it.each(['Bearer ', 'bearer ', 'BEARER '])(
    'refuses the %p prefix with 401 error_jwt_hash_not_found, saying to drop it',
    async (prefix) => {
      const res = await t.http().get('/v1/users/me').set('authorization', `${prefix}${session.jwt}`);
      expectError(res, 401, 'error_jwt_hash_not_found');
      expect(res.body.message).toBe(
        'The credential is not valid: send the raw token or API key, without the Bearer prefix.',
      );
    },
  );

  it.each([
    [
      'undefined',
      'error_jwt_hash_not_found',
      /says "undefined", not a credential: the client sent a value it never set/,
    ],
    ['null', 'error_jwt_hash_not_found', /says "null", not a credential/],
    [
      'garbage',
      'error_jwt_hash_not_found',
      /^The credential is not valid: it is malformed, unknown or was never issued/,
    ],
    [' ', 'error_jwt_is_required', /^The Authorization header is empty: send the jwt of a login/],
  ])('answers Authorization: %p with a hint that fits it, and no word of Bearer', async (header, code, hint) => {
    const res = await t.http().get('/v1/users/me').set('authorization', header);
    expectError(res, 401, code);
    expect(res.body.message).toMatch(hint);
    expect(res.body.message).not.toMatch(/bearer/i);
  });

  describe('JWTs that are not what the service issued → 401 error_jwt_hash_not_found', () => {
    it('garbage', async () => {
      for (const value of ['garbage', 'a.b.c', '....', 'x'.repeat(5000)]) {
        expectError(await t.http().get('/v1/users/me').set('authorization', value), 401, 'error_jwt_hash_not_found');
      }
    });

    it('alg: none', async () => {
      const [header, payload] = session.jwt.split('.');
      const decodedHeader = JSON.parse(Buffer.from(header, 'base64url').toString());
      const none = `${b64url({ ...decodedHeader, alg: 'none' })}.${payload}.`;
      expectError(await t.http().get('/v1/users/me').set('authorization', none), 401, 'error_jwt_hash_not_found');
    });

    it('a tampered payload with the original signature', async () => {
      const [header, payload, signature] = session.jwt.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const tampered = `${header}.${b64url({ ...claims, cid: claims.cid + 1 })}.${signature}`;
      expectError(await t.http().get('/v1/users/me').set('authorization', tampered), 401, 'error_jwt_hash_not_found');
    });

    it('signed with another key (another Ed25519 key under our kid, or an HS256 secret we do not hold)', async () => {
      const [header, payload] = session.jwt.split('.');
      const realHeader = JSON.parse(Buffer.from(header, 'base64url').toString());
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const otherKey = generateKeyPairSync('ed25519').privateKey;
      const forged = [
        signEdDsa(claims, realHeader.kid, otherKey),
        signHs256({ alg: 'HS256', typ: 'JWT', kid: hs256Kid }, claims, 'another-secret-that-is-32-bytes-long!!'),
      ];
      for (const token of forged) {
        expectError(await t.http().get('/v1/users/me').set('authorization', token), 401, 'error_jwt_hash_not_found');
      }
    });

    it('an algorithm the key does not fix: HS256 under the Ed25519 kid, keyed with its public key; EdDSA under an HS256 kid', async () => {
      const [header, payload] = session.jwt.split('.');
      const realHeader = JSON.parse(Buffer.from(header, 'base64url').toString());
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const publicPem = createPublicKey(TEST_SIGNING_KEY.privateKey).export({ format: 'pem', type: 'spki' });
      const confused = [
        signHs256({ alg: 'HS256', typ: 'JWT', kid: realHeader.kid }, claims, publicPem.toString()),
        `${b64url({ alg: 'EdDSA', typ: 'JWT', kid: hs256Kid })}.${payload}.${session.jwt.split('.')[2]}`,
      ];
      for (const token of confused) {
        expectError(await t.http().get('/v1/users/me').set('authorization', token), 401, 'error_jwt_hash_not_found');
      }
    });

    it('signed with the right key but never issued (made up, or the claims of a real token re-signed)', async () => {
      const [header, payload] = session.jwt.split('.');
      const realHeader = JSON.parse(Buffer.from(header, 'base64url').toString());
      const realClaims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      expect(realHeader).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      const key = TEST_SIGNING_KEY.privateKey;
      const hs = { alg: 'HS256', typ: 'JWT', kid: hs256Kid };
      const secret = TEST_ENV.JWT_SECRET;
      const madeUp = [
        signEdDsa({ ...realClaims, jti: randomUUID() }, realHeader.kid, key),
        signEdDsa({ ...realClaims, iat: realClaims.iat + 1 }, realHeader.kid, key),
        signEdDsa({ ...realClaims, cid: 999 }, realHeader.kid, key),
        // The HS256 secret still verifies (tokens from before the move), but only tokens it issued.
        signHs256(hs, { ...realClaims, jti: randomUUID() }, secret),
        signHs256(hs, realClaims, secret),
      ];
      for (const token of madeUp) {
        expectError(await t.http().get('/v1/users/me').set('authorization', token), 401, 'error_jwt_hash_not_found');
      }
      // The real token is unaffected.
      await t.http().get('/v1/users/me').set('authorization', session.jwt).expect(200);
    });

    it('an HS256 token whose kid names no configured key', async () => {
      const [, payload] = session.jwt.split('.');
      const unknownKid = signHs256(
        { alg: 'HS256', typ: 'JWT', kid: 'nope' },
        JSON.parse(Buffer.from(payload, 'base64url').toString()),
        TEST_ENV.JWT_SECRET,
      );
      expectError(await t.http().get('/v1/users/me').set('authorization', unknownKid), 401, 'error_jwt_hash_not_found');
    });
  });

  describe('API keys (key:secret in the same header)', () => {
    let apiKey: string;
    let apiKeyId: string;

    beforeAll(async () => {
      const res = await t
        .http()
        .post('/v1/apikeys')
        .set('authorization', session.jwt)
        .send({ name: 'sync', permissions: ['users:read', 'apikeys:manage'] })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'sync',
        permissions: ['apikeys:manage', 'users:read'],
        api_key: expect.stringMatching(/^ak_[\w-]+:[\w-]+$/),
      });
      apiKey = res.body.api_key;
      apiKeyId = res.body.id;
    });

    it('authenticates as its employee and company, with its own permissions', async () => {
      const res = await t.http().get('/v1/users/me').set('authorization', apiKey).expect(200);
      expect(res.body).toMatchObject({
        employee: { id: account.id },
        company: { id: company.id },
        permissions: ['apikeys:manage', 'users:read'],
        credential: 'api_key',
        session_id: null,
      });
      await t.http().get('/v1/users').set('authorization', apiKey).expect(200);
    });

    it('is listed without its secret', async () => {
      const res = await t.http().get('/v1/apikeys').set('authorization', apiKey).expect(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({ id: apiKeyId, name: 'sync', permissions: ['apikeys:manage', 'users:read'] }),
      ]);
      expect(JSON.stringify(res.body)).not.toContain(apiKey.split(':')[1]);
    });

    it('cannot do what it was not given: 403 error_permission_denied', async () => {
      const res = await t
        .http()
        .post('/v1/users')
        .set('authorization', apiKey)
        .send({ email: 'new@example.test', password: 'long enough', name: 'New', permissions: [] });
      expectError(res, 403, 'error_permission_denied');
    });

    it.each([
      ['post', '/v1/users/logout'],
      ['post', '/v1/users/changeworkingcompany'],
      ['get', '/v1/users/sessions'],
      ['get', '/v1/users/companies'],
      ['post', '/v1/apikeys'],
    ])('refuses login-only route %s %s with 403 error_permission_denied', async (method, path) => {
      const res = await t
        .http()
        [method as 'get' | 'post'](path)
        .set('authorization', apiKey)
        .send({ company_id: company.id, name: 'x', permissions: ['users:read'] });
      expectError(res, 403, 'error_permission_denied');
    });

    it('a wrong secret or an unknown key → 401 error_jwt_hash_not_found', async () => {
      const [keyId] = apiKey.split(':');
      for (const value of [`${keyId}:wrong-secret`, 'ak_unknownkey123:secret', 'a:b', ':', 'key:']) {
        expectError(await t.http().get('/v1/users/me').set('authorization', value), 401, 'error_jwt_hash_not_found');
      }
      expectError(
        await t.http().get('/v1/users/me').set('authorization', `Bearer ${apiKey}`),
        401,
        'error_jwt_hash_not_found',
      );
    });

    it('cannot be given more than its owner holds', async () => {
      const limited = await createAccount(t, [company.id], ['apikeys:manage']);
      const limitedSession = await login(t, limited, company.id);
      const res = await t
        .http()
        .post('/v1/apikeys')
        .set('authorization', limitedSession.jwt)
        .send({ name: 'too much', permissions: ['users:write'] });
      expectError(res, 403, 'error_permission_denied');
    });

    it('revoked → 400 error_jwt_blacklisted', async () => {
      const created = await t
        .http()
        .post('/v1/apikeys')
        .set('authorization', session.jwt)
        .send({ name: 'temp', permissions: ['users:read'] })
        .expect(201);
      await t.http().get('/v1/users/me').set('authorization', created.body.api_key).expect(200);
      await t.http().delete(`/v1/apikeys/${created.body.id}`).set('authorization', session.jwt).expect(204);
      expectError(
        await t.http().get('/v1/users/me').set('authorization', created.body.api_key),
        400,
        'error_jwt_blacklisted',
      );
      expectError(
        await t.http().delete(`/v1/apikeys/${created.body.id}`).set('authorization', session.jwt),
        404,
        'error_not_found',
      );
    });
  });

  describe('permissions', () => {
    it('a JWT without the route permission → 403 error_permission_denied', async () => {
      const reader = await createAccount(t, [company.id], ['products:read']);
      const readerSession = await login(t, reader, company.id);
      expectError(
        await t.http().get('/v1/users').set('authorization', readerSession.jwt),
        403,
        'error_permission_denied',
      );
      await t.http().get('/v1/users/me').set('authorization', readerSession.jwt).expect(200);
    });

    it('POST /v1/users creates an employee in the current company, granting only what the caller holds', async () => {
      const res = await t
        .http()
        .post('/v1/users')
        .set('authorization', session.jwt)
        .send({ email: 'Hire@Example.test', password: 'long enough pw', name: 'Hire', permissions: ['orders:read'] })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        email: 'hire@example.test',
        name: 'Hire',
        permissions: ['orders:read'],
        roles: [],
      });
      const list = await t.http().get('/v1/users').set('authorization', session.jwt).expect(200);
      expect(list.body.data).toEqual(expect.arrayContaining([{ ...res.body, mfa: false }]));
      const dup = await t
        .http()
        .post('/v1/users')
        .set('authorization', session.jwt)
        .send({ email: 'hire@example.test', password: 'long enough pw', name: 'Hire', permissions: [] });
      // docs/contract.md: an e-mail that already has an account is 409, saying to invite it instead.
      expect(dup.status).toBe(409);
      expect(dup.body.error).toEqual(['error_conflict']);
    });
  });

  it('sends no database query for a credential already seen (JWT and API key)', async () => {
    const created = await t
      .http()
      .post('/v1/apikeys')
      .set('authorization', session.jwt)
      .send({ name: 'hot path', permissions: ['users:read'] })
      .expect(201);
    for (const credential of [session.jwt, created.body.api_key]) {
      await t.http().get('/v1/users/me').set('authorization', credential).expect(200);
      const before = QueryCounter.total;
      for (let i = 0; i < 20; i++) await t.http().get('/v1/users/me').set('authorization', credential).expect(200);
      expect(QueryCounter.total - before).toBe(0);
    }
    // A credential not seen before does cost its one lookup.
    const before = QueryCounter.total;
    const fresh = await login(t, account, company.id);
    const afterLogin = QueryCounter.total;
    await t.http().get('/v1/users/me').set('authorization', fresh.jwt).expect(200);
    expect(afterLogin).toBeGreaterThan(before);
    expect(QueryCounter.total - afterLogin).toBeGreaterThanOrEqual(1);
  });

  // Refusals that needed a query (a well-formed but unknown key) are remembered, within the cache's cap.
  it('remembers no credential refused without the database, so a flood of them cannot fill memory', async () => {
    const cached = async () =>
      Number(/^credential_cache_entries (\d+)/m.exec((await t.http().get('/metrics').expect(200)).text)![1]);
    const before = await cached();
    for (let i = 0; i < 30; i++) {
      const garbage =
        i % 3 === 0 ? `x${i}.${'y'.repeat(2000)}.z` : i % 3 === 1 ? `k${i}:too-short-key-id` : `a${i}.b.c`;
      expectError(await t.http().get('/v1/users/me').set('authorization', garbage), 401, 'error_jwt_hash_not_found');
    }
    expect(await cached()).toBe(before);
  });

  it('never writes a token, refresh token, API key secret or password to the log', () => {
    for (const secret of [session.jwt, session.refresh_token, account.password])
      expect(t.logs.text).not.toContain(secret);
  });
});
