import type { Response } from 'supertest';
import { type Account, createAccount, createCompanies, type LoginBody } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { type BareItem, parseList } from './support/structured-fields';
import { startTestApp, type TestApp } from './support/test-app';

// docs/contract.md, "Rate limits a client can plan with": RateLimit-Policy and RateLimit
// (draft-ietf-httpapi-ratelimit-headers-11) beside X-Rate-Limit-*, parsed by test/support's own RFC 9651 parser.
const PERIOD_MS = 3000;

let addresses = 0;
const freshIp = () => `198.51.100.${++addresses}`;

/** The one member of a field: its name and its parameters, with nothing else allowed. */
function member(field: unknown, keys: string[]): { name: string; params: Record<string, BareItem> } {
  expect(typeof field).toBe('string');
  const list = parseList(field as string);
  expect(list).toHaveLength(1);
  const [{ value, params }] = list;
  expect(typeof value).toBe('string');
  expect([...params.keys()]).toEqual(keys);
  return { name: value as string, params: Object.fromEntries(params) };
}

/**
 * Both fields of a counted answer, against its X-Rate-Limit-* headers: the name is the identifier's method and
 * group in lowercase, q the limit, w 3, r the remaining; t whole seconds, at most the 3 s a full bucket needs.
 * Returns t.
 */
function checkFields(res: Response): number {
  const [, method, group] = String(res.headers['x-rate-limit-identifier']).split('|');
  const policy = member(res.headers['ratelimit-policy'], ['q', 'w']);
  const state = member(res.headers['ratelimit'], ['r', 't']);
  const name = `${method}-${group}`.toLowerCase();
  expect({ policy: policy.name, state: state.name }).toEqual({ policy: name, state: name });
  expect(policy.params).toEqual({ q: Number(res.headers['x-rate-limit-limit']), w: 3 });
  expect(state.params.r).toBe(Number(res.headers['x-rate-limit-remaining']));
  expect(Number.isInteger(state.params.t) && (state.params.t as number) >= 0).toBe(true);
  expect(state.params.t).toBeLessThanOrEqual(PERIOD_MS / 1000);
  return state.params.t as number;
}

/**
 * The leaky bucket, modelled here on its own: it drains `capacity` per 3 s, a request that fits adds 3 s /
 * capacity, a refused one nothing; empty after `level` ms, so t = ceil(level / 1000).
 */
class BucketModel {
  private level = 0;
  private at: number;
  constructor(
    private readonly clock: ManualClock,
    private readonly capacity: number,
  ) {
    this.at = clock.nowMs();
  }
  request(): { admitted: boolean; t: number; remaining: number } {
    const interval = PERIOD_MS / this.capacity;
    this.level = Math.max(0, this.level - (this.clock.nowMs() - this.at));
    this.at = this.clock.nowMs();
    const admitted = Math.round(this.level + interval) <= PERIOD_MS;
    if (admitted) this.level += interval;
    const level = Math.round(this.level * 1000) / 1000;
    return { admitted, t: Math.ceil(level / 1000), remaining: this.capacity - Math.ceil(level / interval) };
  }
}

describe('RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let company: { id: number };
  let owner: Account;
  let jwt: string;

  const from = (ip: string, method: 'get' | 'post' | 'delete', path: string, authorization?: string) => {
    const req = t.http()[method](path).set('x-forwarded-for', ip);
    return authorization === undefined ? req : req.set('authorization', authorization);
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T12:00:00Z');
    t = await startTestApp({ clock, env: { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '127.0.0.1' } });
    [company] = await createCompanies(t, 'Alpha');
    owner = await createAccount(t, [company.id], ['*']);
    const res = await from(freshIp(), 'post', '/v1/users/authenticatefinish').send({
      email: owner.email,
      password: owner.password,
      company_id: company.id,
    });
    jwt = (res.body as LoginBody).jwt;
  });
  afterAll(() => t?.close());

  it.each<['get' | 'post' | 'delete', string, number]>([
    ['get', '/v1/products', 30],
    ['post', '/v1/products', 15],
    ['delete', '/v1/products/999999', 3],
  ])('%s %s: every answer, 429 included, matches X-Rate-Limit-* and the bucket over time', async (method, path, q) => {
    const ip = freshIp();
    const model = new BucketModel(clock, q);
    const send = () => from(ip, method, path, jwt).send(method === 'post' ? {} : undefined);
    const check = async () => {
      const res = await send();
      const expected = model.request();
      expect(res.status === 429).toBe(!expected.admitted);
      expect({ t: checkFields(res), r: Number(res.headers['x-rate-limit-remaining']) }).toEqual({
        t: expected.t,
        r: expected.remaining,
      });
    };
    for (let i = 0; i < q + 2; i++) await check();
    for (const step of [1, PERIOD_MS / q - 1, 999, 1, 1500, PERIOD_MS, 250]) {
      clock.advance(step);
      await check();
      await check();
    }
  });

  it('carries both on counted refusals before any handler: no credential (401)', async () => {
    const res = await from(freshIp(), 'get', '/v1/users/me').expect(401);
    expect(checkFields(res)).toBe(1);
    expect(res.headers['ratelimit']).toBe('"get-users";r=29;t=1');
    expect(res.headers['ratelimit-policy']).toBe('"get-users";q=30;w=3');
  });

  it('shows, on a /v1 answer no guard saw (unknown route), the counter it would have used without counting', async () => {
    const ip = freshIp();
    const res = await from(ip, 'get', '/v1/nosuchgroup').expect(404);
    expect(checkFields(res)).toBe(0);
    // An unknown route has no group: `-`, as in its X-Rate-Limit-Identifier.
    expect(res.headers['ratelimit']).toBe('"get--";r=30;t=0');
  });

  it.each([
    '"get-products";q=30;w=3,',
    '"get-products" ;q=30',
    '"get-products";Q=30',
    '"get-products";q=1234567890123456',
    '"get-products";q=3.',
    "'get-products';q=30",
    '"get-products" "x"',
    '"get-pro\u00e9ducts"',
  ])('the parser these checks rely on refuses %j', (field) => {
    expect(() => parseList(field)).toThrow(SyntaxError);
  });

  it('the parser reads what RFC 9651 allows, tokens and escapes included', () => {
    expect(parseList('"a\\"b";q=1, tok;x;y=?0, (1 2);z=-3.5')).toEqual([
      { value: 'a"b', params: new Map([['q', 1]]) },
      {
        value: { token: 'tok' },
        params: new Map<string, unknown>([
          ['x', true],
          ['y', false],
        ]),
      },
      {
        value: [
          { value: 1, params: new Map() },
          { value: 2, params: new Map() },
        ],
        params: new Map([['z', -3.5]]),
      },
    ]);
  });

  it.each(['/health', '/health/live', '/metrics', '/docs', '/openapi.json'])(
    '%s is not counted and carries neither',
    async (path) => {
      const res = await t.http().get(path);
      expect(res.headers['x-rate-limit-limit']).toBeUndefined();
      expect(res.headers['ratelimit']).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    },
  );
});
