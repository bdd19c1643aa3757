import { expectError } from './support/expectations';
import { createCompanies, createAccount, login, authed } from './support/fixtures';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';

/** `name{labels} value` lines of a Prometheus exposition, as a map from the series to its value. */
function series(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}

async function scrape(t: TestApp): Promise<Map<string, number>> {
  const res = await t.http().get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return series(res.text);
}

const valueOf = (metrics: Map<string, number>, key: string) => metrics.get(key) ?? 0;

describe('GET /metrics (prom-client)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_SCALE: '1' } });
  });
  afterAll(() => t?.close());

  it('shows request counts and latency by route template and status, rate-limit decisions and login outcomes, all moving under load', async () => {
    const [company] = await createCompanies(t, 'Metrics Co');
    const account = await createAccount(t, [company.id]);
    const before = await scrape(t);

    const session = await login(t, account, company.id);
    for (let i = 0; i < 3; i++) await authed(t, session.jwt).get('/v1/users/me').expect(200);
    await authed(t, session.jwt).get('/v1/products/123456').expect(404);
    await authed(t, session.jwt).get('/v1/products/987654').expect(404);
    await t.http().get('/no/such/path/abc').expect(404);
    await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: 'wrong-password-1', company_id: company.id })
      .expect(401);
    await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: 999_999 })
      .expect(403);
    // DELETE allows 3 per 3 s: the 4th is limited.
    const deletes = [];
    for (let i = 0; i < 4; i++) deletes.push((await authed(t, session.jwt).delete('/v1/products/424242')).status);
    expect(deletes).toEqual([404, 404, 404, 429]);

    const after = await scrape(t);
    const moved = (key: string) => valueOf(after, key) - valueOf(before, key);

    expect(moved('http_requests_total{method="GET",route="/v1/users/me",status="200"}')).toBe(3);
    // The route template, never the raw path; unknown paths share one label.
    expect(moved('http_requests_total{method="GET",route="/v1/products/:id",status="404"}')).toBe(2);
    expect(moved('http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect([...after.keys()].filter((key) => /123456|987654|\/no\/such/.test(key))).toEqual([]);
    expect(moved('http_request_duration_seconds_count{method="GET",route="/v1/users/me",status="200"}')).toBe(3);
    expect(
      moved('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/users/me",status="200"}'),
    ).toBe(3);
    expect(moved('http_request_duration_seconds_sum{method="GET",route="/v1/users/me",status="200"}')).toBeGreaterThan(
      0,
    );

    expect(moved('rate_limit_decisions_total{group="users",outcome="allowed"}')).toBeGreaterThanOrEqual(6);
    expect(moved('rate_limit_decisions_total{group="products",outcome="allowed"}')).toBe(5);
    expect(moved('rate_limit_decisions_total{group="products",outcome="limited"}')).toBe(1);

    expect(moved('auth_logins_total{outcome="success",method="password"}')).toBe(1);
    expect(moved('auth_logins_total{outcome="invalid_credentials",method="password"}')).toBe(1);
    expect(moved('auth_logins_total{outcome="not_member",method="password"}')).toBe(1);
    expect(after.has('auth_logins_total{outcome="locked",method="password"}')).toBe(true);

    await authed(t, session.jwt).post('/v1/users/logout').expect(204);
    const loggedOut = await scrape(t);
    expect(
      valueOf(loggedOut, 'auth_revocations_total{reason="session"}') -
        valueOf(after, 'auth_revocations_total{reason="session"}'),
    ).toBe(1);

    expect(moved('db_queries_total')).toBeGreaterThan(0);
    expect(valueOf(after, 'credential_cache_entries')).toBeGreaterThanOrEqual(1);
    for (const name of ['rate_limit_storage_fallbacks_total', 'rate_limit_storage_breaker_open']) {
      expect(after.get(name)).toBe(0);
    }
    // prom-client's default process metrics.
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(after.has(name)).toBe(true);
    }
  });

  it('is not rate limited and carries no rate-limit headers', async () => {
    for (let i = 0; i < 40; i++) {
      const res = await t.http().get('/metrics').expect(200);
      expect(res.headers['x-rate-limit-limit']).toBeUndefined();
    }
  });
});

describe('GET /health/live and GET /health (readiness)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('live answers 200 while the process serves', async () => {
    await t.http().get('/health/live').expect(200, { status: 'ok' });
  });

  it('readiness answers 200 "ok" with the database up and no Redis configured', async () => {
    const res = await t.http().get('/health').expect(200);
    expect(res.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' } } });
    expect(res.body.details.redis).toBeUndefined();
  });
});

describe("readiness with a Redis that goes away (a redis-server of this test's own)", () => {
  let redis: RedisServer;
  let t: TestApp;

  beforeAll(async () => {
    redis = await RedisServer.onFreePort();
    await redis.start();
    t = await startTestApp({ env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.kill();
  });

  it('is "ok" with Redis up, "degraded" but still 200 with Redis down, and "ok" again when it returns', async () => {
    const up = await t.http().get('/health').expect(200);
    expect(up.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, redis: { status: 'up' } } });

    await redis.kill();
    const down = await t.http().get('/health').expect(200);
    expect(down.body).toMatchObject({
      status: 'degraded',
      info: { database: { status: 'up' } },
      error: { redis: { status: 'down' } },
    });
    await t.http().get('/health/live').expect(200);

    await redis.start();
    const deadline = Date.now() + 5000;
    let again = await t.http().get('/health');
    while (again.body.status !== 'ok' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await t.http().get('/health');
    }
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('ok');
  });
});

describe('CORS_ORIGINS', () => {
  const ALLOWED = 'https://admin.example.com';
  const REFUSED = 'https://evil.example.net';

  describe('with origins configured', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { CORS_ORIGINS: `${ALLOWED},http://localhost:5173` } });
    });
    afterAll(() => t?.close());

    it("answers an allowed origin's preflight with 204: Authorization and Content-Type allowed", async () => {
      const res = await t
        .http()
        .options('/v1/users/me')
        .set('origin', ALLOWED)
        .set('access-control-request-method', 'GET')
        .set('access-control-request-headers', 'authorization, content-type')
        .expect(204);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
      expect(res.headers['access-control-allow-headers']).toMatch(/Content-Type/);
      expect(res.headers['access-control-allow-methods']).toMatch(/\bPOST\b/);
      // The SSO exchange from an allowed origin sends the browser's binding cookie.
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers.vary).toMatch(/Origin/);
    });

    it('lets an allowed origin read the rate-limit headers, Retry-After and X-Request-Id of a simple request', async () => {
      const res = await t.http().get('/v1/users/me').set('origin', ALLOWED).expect(401);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
      expect(exposed).toEqual(
        expect.arrayContaining([
          'x-rate-limit-limit',
          'x-rate-limit-remaining',
          'x-rate-limit-identifier',
          'ratelimit-policy',
          'ratelimit',
          'retry-after',
          'x-request-id',
        ]),
      );
      expect(res.headers['x-rate-limit-limit']).toBeDefined();
    });

    it('gives a refused origin no CORS header, on a preflight (405 with Allow, in the contract shape) or a simple request', async () => {
      const preflight = await t
        .http()
        .options('/v1/users/me')
        .set('origin', REFUSED)
        .set('access-control-request-method', 'GET');
      expect(preflight.status).toBe(405);
      expect(preflight.body).toMatchObject({ error: ['error_method_not_allowed'] });
      expect(preflight.headers['allow']).toContain('GET');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();

      const simple = await t.http().get('/health/live').set('origin', REFUSED).expect(200);
      expect(simple.headers['access-control-allow-origin']).toBeUndefined();
      expect(simple.headers['access-control-expose-headers']).toBeUndefined();
      // An origin differing only by scheme or a trailing slash is another origin.
      for (const near of ['http://admin.example.com', `${ALLOWED}/`, `${ALLOWED}:8443`]) {
        const res = await t.http().get('/health/live').set('origin', near).expect(200);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });
  });

  describe('unset', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t?.close());

    it('sends no CORS header, and a preflight is just a method the path does not serve', async () => {
      const simple = await t.http().get('/health/live').set('origin', ALLOWED).expect(200);
      expect(Object.keys(simple.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      const preflight = await t
        .http()
        .options('/v1/users/me')
        .set('origin', ALLOWED)
        .set('access-control-request-method', 'GET');
      expect(preflight.status).toBe(405);
      expect(preflight.headers['allow']).toContain('GET');
      expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    });
  });
});

describe('METRICS_TOKEN', () => {
  const token = 'scrape-token-of-this-test-0123';
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: token } });
  });
  afterAll(() => t?.close());

  it('answers the scraper that presents the token', async () => {
    const res = await t.http().get('/metrics').set('authorization', `Bearer ${token}`).expect(200);
    expect(res.text).toContain('http_requests_total');
  });

  it('refuses a scrape without the token, and one with another token or scheme, with 401 in the error shape', async () => {
    expectError(await t.http().get('/metrics'), 401, 'error_jwt_is_required');
    for (const value of [`Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token, `bearer ${token}`]) {
      const res = await t.http().get('/metrics').set('authorization', value);
      expectError(res, 401, 'error_jwt_hash_not_found');
      expect(res.text).not.toContain('http_requests_total');
      expect(res.text).not.toContain(token);
    }
  });

  it('leaves the health endpoints open', async () => {
    await t.http().get('/health/live').expect(200);
  });
});
