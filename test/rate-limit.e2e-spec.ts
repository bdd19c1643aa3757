import { createHash, randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type Test from 'supertest/lib/test';
import { DataSource } from 'typeorm';
import { LoginSession } from '../src/identity/sessions/login-session.entity';
import { ManualClock } from './support/manual-clock';
import { EmployeeService } from '../src/accounts/employee/employee.service';
import { MemoryRateLimitStorage } from '../src/platform/counters/memory-rate-limit.storage';
import { RATE_LIMIT_STORAGE } from '../src/platform/counters/rate-limit-storage';
import { type Account, createAccount, createCompanies, type LoginBody } from './support/fixtures';
import { RateLimitProbeModule } from './support/rate-limit-probe.module';
import { startTestApp, type TestApp } from './support/test-app';

// A full bucket drains in 3 s (the source's window); one request every 3000 / limit ms.
const PERIOD_MS = 3000;
const LIMITED_BODY = '["error_rate_limit_exceed"]';
const IDENTIFIER = /^[^|\s]+\|[A-Z]+\|[a-z-]+\|([0-9a-f]{16}|-)$/;

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

/** The contract's token hash: first 16 lowercase hex characters of SHA-256 of the header exactly as sent. */
const tokenHash = (authorization: string) => createHash('sha256').update(authorization).digest('hex').slice(0, 16);

// Documentation ranges (RFC 5737), one address per counter a test needs, so tests never share a counter.
let addresses = 0;
const freshIp = () => {
  addresses++;
  return `${['192.0.2', '198.51.100', '203.0.113'][Math.floor(addresses / 250) % 3]}.${(addresses % 250) + 1}`;
};

const headersOf = (res: Response) => ({
  limit: res.headers['x-rate-limit-limit'],
  remaining: res.headers['x-rate-limit-remaining'],
  identifier: res.headers['x-rate-limit-identifier'],
});

function expectCounted(res: Response, status: number, limit: number, remaining: number, identifier: string) {
  expect({ status: res.status, ...headersOf(res) }).toEqual({
    status,
    limit: String(limit),
    remaining: String(remaining),
    identifier,
  });
}

/**
 * The general limit's answer: 429, the three headers with Remaining 0, the array body, and Retry-After 1: with
 * every limit of the table, one request drains in at most a second (DELETE: 3 per 3 s).
 */
function expectLimited(res: Response, limit: number, identifier: string, method: Method = 'get') {
  expectCounted(res, 429, limit, 0, identifier);
  expect(res.headers['retry-after']).toBe('1');
  if (method !== 'head') {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.text).toBe(LIMITED_BODY);
  }
}

/** Headers present and well-formed, whatever the status. */
function expectHeaders(res: Response, ip: string) {
  const { limit, remaining, identifier } = headersOf(res);
  expect({ status: res.status, limit, remaining, identifier }).toEqual({
    status: res.status,
    limit: expect.stringMatching(/^[1-9]\d*$/),
    remaining: expect.stringMatching(/^\d+$/),
    identifier: expect.stringMatching(IDENTIFIER),
  });
  expect(Number(remaining)).toBeLessThanOrEqual(Number(limit));
  expect(identifier.startsWith(`${ip}|`)).toBe(true);
}

describe('request rate limit (memory storage, one instance)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let company: { id: number };
  let owner: Account;

  /** A request from `ip` (the app believes X-Forwarded-For from 127.0.0.1, i.e. from the test). */
  const from = (ip: string, method: Method, path: string, authorization?: string): Test => {
    const req = t.http()[method](path).set('x-forwarded-for', ip);
    return authorization === undefined ? req : req.set('authorization', authorization);
  };

  // Each login comes from an address of its own, so logins never eat into a counter a test measures.
  const loginAs = async (account: Account): Promise<LoginBody> => {
    const res = await from(freshIp(), 'post', '/v1/users/authenticatefinish').send({
      email: account.email,
      password: account.password,
      company_id: company.id,
    });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return res.body as LoginBody;
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({
      clock,
      extraModules: [RateLimitProbeModule],
      env: { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '127.0.0.1' },
    });
    [company] = await createCompanies(t, 'Alpha');
    owner = await createAccount(t, [company.id], ['*']);
  });
  afterAll(() => t?.close());

  it('runs on the in-process memory storage with the unscaled table', () => {
    expect(t.app.get(RATE_LIMIT_STORAGE)).toBeInstanceOf(MemoryRateLimitStorage);
    expect(t.config.rateLimitScale).toBe(1);
  });

  describe('per method: a bucket of the table’s number, draining that many per 3 s', () => {
    it.each<[Method, string, number, number]>([
      ['get', '/v1/probe-products', 30, 200],
      ['post', '/v1/probe-products', 15, 201],
      ['put', '/v1/probe-products/7', 15, 200],
      ['patch', '/v1/probe-products/7', 30, 200],
      ['delete', '/v1/probe-products/7', 3, 204],
      ['head', '/v1/probe-products', 30, 200],
      ['options', '/v1/probe-products', 30, 204],
    ])('%s %s: %i at once, then one every 3000/%i ms', async (method, path, limit, okStatus) => {
      const ip = freshIp();
      const identifier = `${ip}|${method.toUpperCase()}|products|-`;
      const interval = PERIOD_MS / limit;
      for (let i = 1; i <= limit; i++)
        expectCounted(await from(ip, method, path), okStatus, limit, limit - i, identifier);

      expectLimited(await from(ip, method, path), limit, identifier, method);
      // Hammering a full bucket adds nothing: the next slot comes just as early.
      expectLimited(await from(ip, method, path), limit, identifier, method);

      clock.advance(interval - 1);
      expectLimited(await from(ip, method, path), limit, identifier, method);
      clock.advance(1);
      expectCounted(await from(ip, method, path), okStatus, limit, 0, identifier);
      expectLimited(await from(ip, method, path), limit, identifier, method);

      // Empty again 3 s after it was last full: the whole capacity at once.
      clock.advance(PERIOD_MS);
      for (let i = 1; i <= limit; i++)
        expectCounted(await from(ip, method, path), okStatus, limit, limit - i, identifier);
    });

    it('a client sending 20 GET/s for 6 s gets 30 + 10 per second through (about 90), not 60', async () => {
      const ip = freshIp();
      let admitted = 0;
      for (let i = 0; i < 120; i++) {
        const res = await from(ip, 'get', '/v1/probe-products');
        expect([200, 429]).toContain(res.status);
        if (res.status === 200) admitted++;
        clock.advance(50);
      }
      // A fixed window of 30 per 3 s admitted 60 here.
      expect(admitted).toBeGreaterThanOrEqual(88);
      expect(admitted).toBeLessThanOrEqual(90);
    });

    it('after a full burst, 5 more GETs fit 500 ms later, and Remaining says so', async () => {
      const ip = freshIp();
      const identifier = `${ip}|GET|products|-`;
      for (let i = 0; i < 30; i++) await from(ip, 'get', '/v1/probe-products').expect(200);
      expectLimited(await from(ip, 'get', '/v1/probe-products'), 30, identifier);
      clock.advance(500);
      expectCounted(await from(ip, 'get', '/v1/probe-products'), 200, 30, 4, identifier);
      for (let i = 3; i >= 0; i--) expectCounted(await from(ip, 'get', '/v1/probe-products'), 200, 30, i, identifier);
      expectLimited(await from(ip, 'get', '/v1/probe-products'), 30, identifier);
    });

    it('counts each method separately within one group', async () => {
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await from(ip, 'delete', '/v1/probe-products/1').expect(204);
      expectLimited(await from(ip, 'delete', '/v1/probe-products/1'), 3, `${ip}|DELETE|products|-`);
      expectCounted(await from(ip, 'get', '/v1/probe-products'), 200, 30, 29, `${ip}|GET|products|-`);
      expectCounted(await from(ip, 'post', '/v1/probe-products'), 201, 15, 14, `${ip}|POST|products|-`);
    });
  });

  describe('per-controller overrides', () => {
    it('files: POST 30, shared by POST /v1/files and /v1/files/addimagefromurl; other methods keep the table', async () => {
      const ip = freshIp();
      const identifier = `${ip}|POST|files|-`;
      for (let i = 1; i <= 30; i++) {
        const path = i % 2 === 0 ? '/v1/probe-files' : '/v1/probe-files/addimagefromurl';
        expectCounted(await from(ip, 'post', path), 201, 30, 30 - i, identifier);
      }
      expectLimited(await from(ip, 'post', '/v1/probe-files'), 30, identifier);
      expectLimited(await from(ip, 'post', '/v1/probe-files/addimagefromurl'), 30, identifier);
      expectCounted(await from(ip, 'put', '/v1/probe-files/1'), 200, 15, 14, `${ip}|PUT|files|-`);
    });

    it('marketingconversations: POST 60; GET keeps 30', async () => {
      const ip = freshIp();
      const identifier = `${ip}|POST|marketingconversations|-`;
      for (let i = 1; i <= 60; i++) {
        expectCounted(
          await from(ip, 'post', `/v1/probe-marketingconversations/c${i}/messages`),
          201,
          60,
          60 - i,
          identifier,
        );
      }
      expectLimited(await from(ip, 'post', '/v1/probe-marketingconversations/c1/messages'), 60, identifier);
      expectCounted(
        await from(ip, 'get', '/v1/probe-marketingconversations'),
        200,
        30,
        29,
        `${ip}|GET|marketingconversations|-`,
      );
    });
  });

  describe('@NoRateLimit()', () => {
    it('is never limited and never counted; its headers show the group’s counter, untouched', async () => {
      const ip = freshIp();
      const identifier = `${ip}|GET|products|-`;
      for (let i = 0; i < 70; i++)
        expectCounted(await from(ip, 'get', '/v1/probe-products/webhook'), 200, 30, 30, identifier);
      expectCounted(await from(ip, 'get', '/v1/probe-products'), 200, 30, 29, identifier);

      for (let i = 0; i < 29; i++) await from(ip, 'get', '/v1/probe-products').expect(200);
      expectLimited(await from(ip, 'get', '/v1/probe-products'), 30, identifier);
      // The group is exhausted, the exempt route still answers.
      expectCounted(await from(ip, 'get', '/v1/probe-products/webhook'), 200, 30, 0, identifier);
    });
  });

  describe('counter separation', () => {
    it('GET /v1/products and GET /v1/orders are independent counters', async () => {
      const ip = freshIp();
      for (let i = 0; i < 30; i++) await from(ip, 'get', '/v1/probe-products').expect(200);
      expectLimited(await from(ip, 'get', '/v1/probe-products'), 30, `${ip}|GET|products|-`);
      expectCounted(await from(ip, 'get', '/v1/probe-orders'), 200, 30, 29, `${ip}|GET|orders|-`);
    });

    it('two valid tokens, even of one account, have their own counters; no token has a third', async () => {
      const [first, second] = [await loginAs(owner), await loginAs(owner)];
      const other = await loginAs(await createAccount(t, [company.id], ['orders:read']));
      const ip = freshIp();
      for (let i = 1; i <= 30; i++) {
        expectCounted(
          await from(ip, 'get', '/v1/probe-orders/mine', first.jwt),
          200,
          30,
          30 - i,
          `${ip}|GET|orders|${tokenHash(first.jwt)}`,
        );
      }
      expectLimited(
        await from(ip, 'get', '/v1/probe-orders/mine', first.jwt),
        30,
        `${ip}|GET|orders|${tokenHash(first.jwt)}`,
      );
      for (const session of [second, other]) {
        expectCounted(
          await from(ip, 'get', '/v1/probe-orders/mine', session.jwt),
          200,
          30,
          29,
          `${ip}|GET|orders|${tokenHash(session.jwt)}`,
        );
      }
      expectCounted(await from(ip, 'get', '/v1/probe-orders/mine'), 401, 30, 29, `${ip}|GET|orders|-`);
    });

    it('one token from two client IPs has two counters', async () => {
      const session = await loginAs(owner);
      const [ipA, ipB] = [freshIp(), freshIp()];
      for (let i = 0; i < 30; i++) await from(ipA, 'get', '/v1/probe-orders/mine', session.jwt).expect(200);
      expectLimited(
        await from(ipA, 'get', '/v1/probe-orders/mine', session.jwt),
        30,
        `${ipA}|GET|orders|${tokenHash(session.jwt)}`,
      );
      expectCounted(
        await from(ipB, 'get', '/v1/probe-orders/mine', session.jwt),
        200,
        30,
        29,
        `${ipB}|GET|orders|${tokenHash(session.jwt)}`,
      );
    });

    it('made-up, Bearer-prefixed, revoked or missing credentials all share the "-" counter, 401s included', async () => {
      const session = await loginAs(owner);
      const revoked = await loginAs(owner);
      await from(freshIp(), 'post', '/v1/users/logout', revoked.jwt).expect(204);
      const [header, payload] = session.jwt.split('.');
      const inventions = [
        () => randomBytes(24).toString('hex'),
        () => `${header}.${payload}.${randomBytes(32).toString('base64url')}`,
        () => `ak_${randomBytes(6).toString('hex')}:${randomBytes(16).toString('hex')}`,
        () => `Bearer ${session.jwt}`,
        () => `bearer ${randomBytes(8).toString('hex')}`,
        () => revoked.jwt,
        () => undefined,
      ];
      const ip = freshIp();
      const identifier = `${ip}|GET|orders|-`;
      const statuses = new Set<number>();
      for (let i = 1; i <= 30; i++) {
        const res = await from(ip, 'get', '/v1/probe-orders/mine', inventions[i % inventions.length]());
        expectCounted(res, res.status, 30, 30 - i, identifier);
        statuses.add(res.status);
      }
      // 401 for the unknown, Bearer-prefixed and missing ones, 400 for the revoked one: all counted.
      expect([...statuses].sort()).toEqual([400, 401]);
      expectLimited(await from(ip, 'get', '/v1/probe-orders/mine', randomBytes(24).toString('hex')), 30, identifier);
      expectLimited(await from(ip, 'get', '/v1/probe-orders/mine', `Bearer ${session.jwt}`), 30, identifier);
      // The real token still has its own, untouched counter.
      expectCounted(
        await from(ip, 'get', '/v1/probe-orders/mine', session.jwt),
        200,
        30,
        29,
        `${ip}|GET|orders|${tokenHash(session.jwt)}`,
      );
    });

    it('a request refused for a missing permission (403) counts against its token', async () => {
      const reader = await loginAs(await createAccount(t, [company.id], ['products:read']));
      const ip = freshIp();
      const identifier = `${ip}|POST|products|${tokenHash(reader.jwt)}`;
      for (let i = 1; i <= 15; i++) {
        const res = await from(ip, 'post', '/v1/probe-products/admin', reader.jwt);
        expectCounted(res, 403, 15, 15 - i, identifier);
        expect(res.body.error).toEqual(['error_permission_denied']);
      }
      expectLimited(await from(ip, 'post', '/v1/probe-products/admin', reader.jwt), 15, identifier);
    });
  });

  describe('X-Rate-Limit-Identifier', () => {
    it('is {ip}|{METHOD}|{group}|{first 16 hex of SHA-256 of the Authorization header}, never the credential', async () => {
      const session = await loginAs(owner);
      const created = await from(freshIp(), 'post', '/v1/apikeys', session.jwt)
        .send({ name: 'rate-limit', permissions: ['orders:read'] })
        .expect(201);
      const apiKey: string = created.body.api_key;
      const ip = freshIp();

      for (const credential of [session.jwt, apiKey]) {
        const res = await from(ip, 'get', '/v1/probe-orders/mine', credential).expect(200);
        const identifier = res.headers['x-rate-limit-identifier'];
        expect(identifier).toBe(`${ip}|GET|orders|${tokenHash(credential)}`);
        expect(identifier).toMatch(IDENTIFIER);
        for (const part of [credential, ...credential.split(/[.:]/)]) expect(identifier).not.toContain(part);
      }
      expect(tokenHash(session.jwt)).toMatch(/^[0-9a-f]{16}$/);

      const anonymous = await from(ip, 'get', '/v1/probe-products').expect(200);
      expect(anonymous.headers['x-rate-limit-identifier']).toBe(`${ip}|GET|products|-`);
      const bearer = await from(ip, 'get', '/v1/probe-orders/mine', `Bearer ${session.jwt}`).expect(401);
      expect(bearer.headers['x-rate-limit-identifier']).toBe(`${ip}|GET|orders|-`);
      expect(bearer.headers['x-rate-limit-identifier']).not.toContain(session.jwt);
      // The same token on a public route of another group: the hash names the token wherever it goes.
      const publicRoute = await from(ip, 'post', '/v1/probe-files', session.jwt).expect(201);
      expect(publicRoute.headers['x-rate-limit-identifier']).toBe(`${ip}|POST|files|${tokenHash(session.jwt)}`);
    });
  });

  describe('headers on every /v1 response', () => {
    it.each<[string, number, (ip: string, jwt: string) => Test]>([
      ['200', 200, (ip) => from(ip, 'get', '/v1/probe-products')],
      ['201', 201, (ip) => from(ip, 'post', '/v1/probe-products').send({ n: 1 })],
      ['204', 204, (ip) => from(ip, 'delete', '/v1/probe-products/1')],
      ['400 validation', 400, (ip) => from(ip, 'post', '/v1/probe-products').send({ n: -1 })],
      [
        '400 malformed JSON',
        400,
        (ip) => from(ip, 'post', '/v1/probe-products').set('content-type', 'application/json').send('{"n": '),
      ],
      ['401', 401, (ip) => from(ip, 'get', '/v1/probe-orders/mine')],
      ['403', 403, (ip, jwt) => from(ip, 'post', '/v1/probe-orders', jwt)],
      ['404 unknown route', 404, (ip) => from(ip, 'get', '/v1/nothing-here')],
      ['404 unknown route in a known group', 404, (ip) => from(ip, 'patch', '/v1/products/1/2/3')],
      ['404 from a handler', 404, (ip, jwt) => from(ip, 'delete', '/v1/users/sessions/not-a-session', jwt)],
      [
        '413',
        413,
        (ip) =>
          from(ip, 'post', '/v1/probe-products')
            .set('content-type', 'application/json')
            .send(JSON.stringify({ n: 1, padding: 'a'.repeat(1024 * 1024) })),
      ],
      ['415', 415, (ip) => from(ip, 'post', '/v1/probe-products').set('content-type', 'text/plain').send('n=1')],
      ['500', 500, (ip) => from(ip, 'get', '/v1/probe-products/boom')],
    ])('%s', async (_label, status, send) => {
      const reader = await loginAs(await createAccount(t, [company.id], ['products:read']));
      const ip = freshIp();
      const res = await send(ip, reader.jwt);
      expect(res.status).toBe(status);
      expectHeaders(res, ip);
    });

    it('429', async () => {
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await from(ip, 'delete', '/v1/probe-products/1').expect(204);
      const res = await from(ip, 'delete', '/v1/probe-products/1');
      expectLimited(res, 3, `${ip}|DELETE|products|-`);
      expectHeaders(res, ip);
    });

    it('a body refused before the handler shows the counter it would have used, with the controller’s own limit', async () => {
      const ip = freshIp();
      const malformed = (path: string) => from(ip, 'post', path).set('content-type', 'application/json').send('{"n": ');
      await from(ip, 'post', '/v1/probe-files').expect(201);
      for (let i = 0; i < 2; i++) {
        expectCounted(await malformed('/v1/probe-files/addimagefromurl'), 400, 30, 29, `${ip}|POST|files|-`);
      }
      await from(ip, 'post', '/v1/probe-products').expect(201);
      expectCounted(await malformed('/v1/probe-products'), 400, 15, 14, `${ip}|POST|products|-`);
      const unknown = await from(ip, 'post', '/v1/nothing-here');
      expectCounted(unknown, 404, 15, 15, `${ip}|POST|-|-`);
      // The group is exhausted: the refused body still carries the (limited) counter's state.
      for (let i = 0; i < 14; i++) await from(ip, 'post', '/v1/probe-products').expect(201);
      expectCounted(await malformed('/v1/probe-products'), 400, 15, 0, `${ip}|POST|products|-`);
    });
  });

  describe('a limited request has no other effect', () => {
    it('a limited POST /v1/users creates no employee', async () => {
      const session = await loginAs(owner);
      const ip = freshIp();
      const identifier = `${ip}|POST|users|${tokenHash(session.jwt)}`;
      // Validation runs after the limiter: these count, and create nothing either.
      for (let i = 1; i <= 15; i++) {
        expectCounted(
          await from(ip, 'post', '/v1/users', session.jwt).send({ email: 'nope' }),
          400,
          15,
          15 - i,
          identifier,
        );
      }
      const email = `limited-${randomBytes(4).toString('hex')}@example.test`;
      const body = { email, password: 'long-enough-password', name: 'Limited', permissions: ['products:read'] };
      expectLimited(await from(ip, 'post', '/v1/users', session.jwt).send(body), 15, identifier);

      expect(await t.app.get(EmployeeService).findWithPasswordHash(email)).toBeFalsy();
      const list = await from(freshIp(), 'get', '/v1/users', session.jwt).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(email);

      clock.advance(PERIOD_MS);
      await from(ip, 'post', '/v1/users', session.jwt).send(body).expect(201);
    });

    it('a limited authenticatefinish opens no session and a limited wrong password is no failed login', async () => {
      const account = await createAccount(t, [company.id], ['*']);
      const ip = freshIp();
      const identifier = `${ip}|POST|users|-`;
      const attempt = (password: string) =>
        from(ip, 'post', '/v1/users/authenticatefinish').send({
          email: account.email,
          password,
          company_id: company.id,
        });

      // 9 failed logins: one short of the lockout.
      for (let i = 1; i <= 9; i++) expectCounted(await attempt('wrong-password'), 401, 15, 15 - i, identifier);
      for (let i = 10; i <= 15; i++) await from(ip, 'post', '/v1/users/logout').expect(401);
      expectLimited(await attempt(account.password), 15, identifier);
      for (let i = 0; i < 3; i++) expectLimited(await attempt('wrong-password'), 15, identifier);

      clock.advance(PERIOD_MS);
      // Had the limited attempts counted, this would be locked out already.
      const tenth = await attempt('wrong-password');
      expect({ status: tenth.status, body: tenth.body }).toEqual({
        status: 401,
        body: { error: ['error_invalid_credentials'], message: expect.any(String) },
      });
      const locked = await attempt('wrong-password');
      expect({ status: locked.status, body: locked.body }).toEqual({
        status: 429,
        body: { error: ['error_rate_limit_exceed'], message: expect.any(String) },
      });
      expectHeaders(locked, ip);

      // The limited correct login opened no session: the account has none.
      expect(await t.app.get(DataSource).getRepository(LoginSession).countBy({ employeeId: account.id })).toBe(0);
    });

    it('a limited logout leaves the session running', async () => {
      const session = await loginAs(owner);
      const ip = freshIp();
      for (let i = 0; i < 15; i++) {
        await from(ip, 'post', '/v1/users/changeworkingcompany', session.jwt).send({}).expect(400);
      }
      expectLimited(
        await from(ip, 'post', '/v1/users/logout', session.jwt),
        15,
        `${ip}|POST|users|${tokenHash(session.jwt)}`,
      );
      await from(freshIp(), 'get', '/v1/users/me', session.jwt).expect(200);
    });
  });

  describe('outside /v1: /health, /metrics and /docs', () => {
    it.each(['/health', '/metrics', '/docs', '/docs/openapi.json'])(
      '%s is never limited and has no headers',
      async (path) => {
        for (let i = 0; i < 40; i++) {
          const res = await t.http().get(path);
          expect({ status: res.status, ...headersOf(res) }).toEqual({
            status: 200,
            limit: undefined,
            remaining: undefined,
            identifier: undefined,
          });
        }
      },
    );
  });
});

describe('client IP: TRUST_PROXY unset', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ extraModules: [RateLimitProbeModule], env: { RATE_LIMIT_SCALE: '1' } });
  });
  afterAll(() => t?.close());

  it('is the socket address; X-Forwarded-For is ignored and spoofing it buys no fresh counter', async () => {
    const identifier = '127.0.0.1|DELETE|products|-';
    for (let i = 1; i <= 3; i++) {
      const res = await t.http().delete('/v1/probe-products/1').set('x-forwarded-for', freshIp());
      expectCounted(res, 204, 3, 3 - i, identifier);
    }
    expectLimited(await t.http().delete('/v1/probe-products/1').set('x-forwarded-for', freshIp()), 3, identifier);
    expectLimited(
      await t.http().delete('/v1/probe-products/1').set('x-forwarded-for', `${freshIp()}, ${freshIp()}`),
      3,
      identifier,
    );
    expectLimited(await t.http().delete('/v1/probe-products/1'), 3, identifier);
  });
});

describe('client IP: TRUST_PROXY=1', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ extraModules: [RateLimitProbeModule], env: { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '1' } });
  });
  afterAll(() => t?.close());

  it('believes the last hop only', async () => {
    const client = freshIp();
    const identifier = `${client}|DELETE|products|-`;
    for (let i = 1; i <= 3; i++) {
      // What the client itself put in front of the proxy's entry is not believed.
      const res = await t.http().delete('/v1/probe-products/1').set('x-forwarded-for', `${freshIp()}, ${client}`);
      expectCounted(res, 204, 3, 3 - i, identifier);
    }
    expectLimited(await t.http().delete('/v1/probe-products/1').set('x-forwarded-for', client), 3, identifier);
    const other = freshIp();
    expectCounted(
      await t.http().delete('/v1/probe-products/1').set('x-forwarded-for', `${client}, ${other}`),
      204,
      3,
      2,
      `${other}|DELETE|products|-`,
    );
    expectCounted(await t.http().delete('/v1/probe-products/1'), 204, 3, 2, '127.0.0.1|DELETE|products|-');
  });
});
