import { ProbeModule } from './support/probe.module';
import { startTestApp, type TestApp } from './support/test-app';

describe('error shape (one global filter)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraModules: [ProbeModule] });
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404 error_not_found', async () => {
    const res = await t.http().get('/v1/no-such-route').expect(404);
    expect(res.body).toEqual({ error: ['error_not_found'], message: expect.any(String) });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers a known path under another method with 405, the methods it takes in Allow, and nothing quoted back', async () => {
    for (const [method, path, allow] of [
      ['get', '/v1/tokens/introspect', 'POST'],
      // DELETE /v1/users/{id} is a route at this path too (its id, not being one, answers 404).
      ['get', '/v1/users/authenticatefinish', 'POST, DELETE'],
      ['delete', '/v1/products', 'GET, HEAD, POST'],
      ['post', '/v1/products/42', 'GET, HEAD, PUT, PATCH, DELETE'],
      ['put', '/.well-known/jwks.json', 'GET, HEAD'],
      ['post', '/health', 'GET, HEAD'],
    ] as const) {
      const res = await t.http()[method](path);
      expect({ path, status: res.status, allow: res.headers.allow }).toEqual({ path, status: 405, allow });
      expect(res.body).toEqual({
        error: ['error_method_not_allowed'],
        message: `This path does not take that method; it takes ${allow} (the Allow header).`,
      });
      expect(res.body.message).not.toContain(path);
    }
  });

  it('keeps 404 for a path no route has, whatever the method', async () => {
    for (const method of ['get', 'post', 'delete'] as const) {
      const res = await t.http()[method]('/v1/users/authenticatefinish/extra');
      expect({ method, status: res.status, allow: res.headers.allow }).toEqual({
        method,
        status: 404,
        allow: undefined,
      });
      expect(res.body.error).toEqual(['error_not_found']);
    }
  });

  it('answers GET / with where to go: the documentation, the administration page, the probes', async () => {
    const res = await t.http().get('/').expect(200);
    expect(res.body).toEqual({
      service: 'staff-auth-service',
      message: expect.stringContaining('/v1'),
      links: {
        docs: '/docs',
        openapi: '/docs/openapi.json',
        admin: '/admin',
        health: '/health',
        jwks: '/.well-known/jwks.json',
      },
    });
    // Every link is served by this same instance.
    for (const link of Object.values(res.body.links as Record<string, string>)) {
      const page = await t.http().get(link);
      expect({ link, status: page.status }).toEqual({ link, status: 200 });
    }
  });

  it('answers a missing field with 400 error_validation and one detail per problem', async () => {
    const res = await t.http().post('/v1/probe/echo').send({ name: 'x' }).expect(400);
    expect(res.body.error).toEqual(['error_validation']);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.details).toEqual(expect.arrayContaining([{ field: 'count', message: expect.any(String) }]));
  });

  it('refuses unknown fields instead of dropping them', async () => {
    const res = await t.http().post('/v1/probe/echo').send({ name: 'x', count: 1, admin: true }).expect(400);
    expect(res.body.error).toEqual(['error_validation']);
    expect(res.body.details).toEqual([{ field: 'admin', message: expect.stringContaining('should not exist') }]);
  });

  it('names nested fields by their path', async () => {
    const res = await t
      .http()
      .post('/v1/probe/echo')
      .send({ name: 'x', count: 1, tag: { label: 'far too long a label' } })
      .expect(400);
    expect(res.body.details).toEqual([{ field: 'tag.label', message: expect.any(String) }]);
  });

  it('never echoes a submitted value in a validation error', async () => {
    const res = await t.http().post('/v1/probe/echo').send({ name: 'hunter2-secret-value-too-long', count: 1 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
  });

  it('accepts a valid body', async () => {
    const res = await t.http().post('/v1/probe/echo').send({ name: 'ok', count: 2 }).expect(201);
    expect(res.body).toEqual({ name: 'ok', count: 2 });
  });

  it('answers malformed JSON with 400 error_validation without quoting the body', async () => {
    const res = await t
      .http()
      .post('/v1/probe/echo')
      .set('content-type', 'application/json')
      .send('{"name": "secret-password-123", ')
      .expect(400);
    expect(res.body).toEqual({ error: ['error_validation'], message: 'The request body is not valid JSON.' });
  });

  it.each([
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"text"'],
    ['JSON null', 'null'],
  ])('answers %s where an object is expected with 400 error_validation', async (_label, raw) => {
    const res = await t.http().post('/v1/probe/echo').set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(['error_validation']);
  });

  it('refuses a prototype-poisoning body', async () => {
    const res = await t
      .http()
      .post('/v1/probe/echo')
      .set('content-type', 'application/json')
      .send('{"name":"x","count":1,"__proto__":{"admin":true}}');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(['error_validation']);
  });

  it('answers a body over 1 MiB with 413 error_payload_too_large', async () => {
    const big = JSON.stringify({ name: 'x', count: 1, padding: 'a'.repeat(1024 * 1024) });
    const res = await t.http().post('/v1/probe/echo').set('content-type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: ['error_payload_too_large'],
      message: 'The request body is larger than the 1 MiB limit.',
    });
  });

  it('states the limit of a form body (64 KiB) in its 413', async () => {
    const res = await t
      .http()
      .post('/v1/tokens/introspect')
      .set('content-type', 'application/x-www-form-urlencoded')
      .send(`token=${'a'.repeat(65 * 1024)}`);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: ['error_payload_too_large'],
      message: 'The request body is larger than the 64 KiB limit.',
    });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
    'answers a %s body with 415 error_unsupported_media_type',
    async (type) => {
      const res = await t.http().post('/v1/probe/echo').set('content-type', type).send('name=x&count=1');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: ['error_unsupported_media_type'], message: expect.any(String) });
    },
  );

  it('answers an unexpected error with 500, a correlation id and no internals, and logs it once', async () => {
    const res = await t.http().get('/v1/probe/boom').expect(500);
    expect(res.body).toEqual({
      error: ['error_internal'],
      message: expect.any(String),
      correlation_id: res.headers['x-request-id'],
    });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('kaboom');
    expect(text).not.toMatch(/at .*\.ts:\d+/);
    const logged = t.logs.records.filter((r) => r.msg === 'unhandled error' && r.reqId === res.body.correlation_id);
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0])).toContain('kaboom');
  });

  it('keeps a well-formed X-Request-Id from the caller and makes one up otherwise', async () => {
    const kept = await t.http().get('/v1/no-such-route').set('x-request-id', 'trace-0123456789');
    expect(kept.headers['x-request-id']).toBe('trace-0123456789');
    const replaced = await t.http().get('/v1/no-such-route').set('x-request-id', 'bad id <script>');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never logs the Authorization header or the __jwtAuthorization parameter', async () => {
    await t
      .http()
      .get('/v1/no-such-route?__jwtAuthorization=query-credential-value&page=2')
      .set('authorization', 'header-credential-value');
    expect(t.logs.text).not.toContain('query-credential-value');
    expect(t.logs.text).not.toContain('header-credential-value');
    expect(t.logs.text).toContain('__jwtAuthorization=%5BREDACTED%5D&page=2');
  });

  it('reads the database through the app (probe for the outage test)', async () => {
    const res = await t.http().get('/v1/probe/companies').expect(200);
    expect(res.body).toEqual({ count: 0 });
  });
});
