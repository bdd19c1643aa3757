import type { Response } from 'supertest';
import { createAccount, createCompanies, type LoginBody } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { CostProbeModule } from './support/rate-limit-probe.module';
import { startTestApp, type TestApp } from './support/test-app';

// docs/contract.md, "Rate limits a client can plan with": GET /v1/ratelimits.
interface Limit {
  method: string;
  group: string;
  capacity: number;
  period_seconds: number;
  remaining: number;
  override: null;
  costs?: Array<{ path: string; cost: number }>;
}

let addresses = 0;
const freshIp = () => `203.0.113.${++addresses}`;

describe('GET /v1/ratelimits', () => {
  let t: TestApp;
  let clock: ManualClock;
  let owner: string;
  let reader: string;

  const get = (ip: string, path: string, authorization?: string) => {
    const req = t.http().get(path).set('x-forwarded-for', ip);
    return authorization === undefined ? req : req.set('authorization', authorization);
  };
  const limitsOf = (res: Response) => (res.body as { limits: Limit[] }).limits;
  const pairs = (limits: Limit[]) => limits.map((l) => `${l.method} ${l.group}`);

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T12:00:00Z');
    // RATE_LIMIT_SCALE 1000 (the test app's default): the table is scaled, the endpoint's own 30 per 3 s is not.
    // The cost probe: a test module's route of cost 5 (no route of the source's table has a cost).
    t = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' }, extraModules: [CostProbeModule] });
    const [company] = await createCompanies(t, 'Alpha');
    const loginAs = async (permissions: Parameters<typeof createAccount>[2]) => {
      const account = await createAccount(t, [company.id], permissions);
      const res = await t.http().post('/v1/users/authenticatefinish').set('x-forwarded-for', freshIp()).send({
        email: account.email,
        password: account.password,
        company_id: company.id,
      });
      return (res.body as LoginBody).jwt;
    };
    owner = await loginAs(['*']);
    reader = await loginAs(['products:read']);
  });
  afterAll(() => t?.close());

  it('lists what a JWT with few permissions can call, and every pair for `*`', async () => {
    const few = limitsOf(await get(freshIp(), '/v1/ratelimits', reader).expect(200));
    const all = limitsOf(await get(freshIp(), '/v1/ratelimits', owner).expect(200));
    // Its own permission, the routes any credential or any JWT may call, the public ones, and this endpoint.
    expect(pairs(few)).toEqual(
      expect.arrayContaining(['GET products', 'GET users', 'POST users', 'DELETE users', 'GET ratelimits']),
    );
    for (const refused of ['POST products', 'GET orders', 'GET files', 'GET apikeys', 'PUT products'])
      expect(pairs(few)).not.toContain(refused);
    expect(pairs(all)).toEqual(expect.arrayContaining([...pairs(few), 'POST products', 'GET orders', 'GET apikeys']));
    expect(pairs(all).length).toBeGreaterThan(pairs(few).length);
    expect(new Set(pairs(all)).size).toBe(all.length);
    // Fresh buckets, the scaled table's capacities, the endpoint's own unscaled one.
    // (The endpoint's own bucket has this very request in it.)
    for (const limit of all) {
      const remaining = limit.group === 'ratelimits' ? limit.capacity - 1 : limit.capacity;
      expect(limit).toEqual({ ...limit, period_seconds: 3, remaining, override: null });
    }
    expect(all.find((l) => l.method === 'GET' && l.group === 'products')?.capacity).toBe(30 * 1000);
    expect(all.find((l) => l.method === 'DELETE' && l.group === 'products')?.capacity).toBe(3 * 1000);
    expect(all.find((l) => l.group === 'ratelimits')).toMatchObject({ method: 'GET', capacity: 30 });
  });

  it("shows remaining dropping after calls to a group, for this caller's bucket only, without counting itself there", async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await get(ip, '/v1/products', reader).expect(200);
    const products = (res: Response) => limitsOf(res).find((l) => l.method === 'GET' && l.group === 'products');
    const first = await get(ip, '/v1/ratelimits', reader).expect(200);
    expect(products(first)?.remaining).toBe(30 * 1000 - 3);
    // Asking again changes nothing there; the endpoint's own bucket took both asks.
    const second = await get(ip, '/v1/ratelimits', reader).expect(200);
    expect(products(second)?.remaining).toBe(30 * 1000 - 3);
    expect(limitsOf(second).find((l) => l.group === 'ratelimits')?.remaining).toBe(30 - 2);
    expect(second.headers['x-rate-limit-identifier']).toMatch(/^203\.0\.113\.\d+\|GET\|ratelimits\|[0-9a-f]{16}$/);
    expect(second.headers['ratelimit']).toBe('"get-ratelimits";r=28;t=1');
    // Another client address of the same credential has buckets of its own.
    expect(products(await get(freshIp(), '/v1/ratelimits', reader).expect(200))?.remaining).toBe(30 * 1000);
    // The bucket drains: 3 s later all is back.
    clock.advance(3000);
    expect(products(await get(ip, '/v1/ratelimits', reader).expect(200))?.remaining).toBe(30 * 1000);
  });

  it("shows a route's cost where it is not 1, and a request of that route takes as many slots", async () => {
    const ip = freshIp();
    const exports = (res: Response) => limitsOf(res).find((l) => l.method === 'GET' && l.group === 'exports');
    const before = await get(ip, '/v1/ratelimits', reader).expect(200);
    expect(exports(before)).toEqual({
      method: 'GET',
      group: 'exports',
      capacity: 30 * 1000,
      period_seconds: 3,
      remaining: 30 * 1000,
      override: null,
      costs: [{ path: '/v1/probe-exports', cost: 5 }],
    });
    // Every other pair (the source's table among them) costs 1 a request and carries no `costs`.
    expect(limitsOf(before).filter((l) => l.costs !== undefined)).toEqual([exports(before)]);
    const costly = await get(ip, '/v1/probe-exports', reader).expect(200);
    expect(costly.headers['x-rate-limit-remaining']).toBe(String(30 * 1000 - 5));
    const cheap = await get(ip, '/v1/probe-exports/status', reader).expect(200);
    expect(cheap.headers['x-rate-limit-remaining']).toBe(String(30 * 1000 - 6));
    expect(exports(await get(ip, '/v1/ratelimits', reader).expect(200))?.remaining).toBe(30 * 1000 - 6);
  });

  it('is itself limited to 30 per 3 s per identifier, answered with the usual 429', async () => {
    const ip = freshIp();
    for (let i = 1; i <= 30; i++) {
      const res = await get(ip, '/v1/ratelimits', owner).expect(200);
      expect(res.headers['x-rate-limit-remaining']).toBe(String(30 - i));
    }
    const refused = await get(ip, '/v1/ratelimits', owner).expect(429);
    expect(refused.text).toBe('["error_rate_limit_exceed"]');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-rate-limit-limit']).toBe('30');
    expect(refused.headers['ratelimit']).toBe('"get-ratelimits";r=0;t=3');
    // Other groups were not charged: the general buckets of this caller are untouched.
    await get(ip, '/v1/products', owner).expect(200);
    clock.advance(100);
    await get(ip, '/v1/ratelimits', owner).expect(200);
  });

  it('leaves out, for an API key, what only a JWT may call, even with `*`', async () => {
    const created = await t
      .http()
      .post('/v1/apikeys')
      .set('x-forwarded-for', freshIp())
      .set('authorization', owner)
      .send({ name: 'planner', permissions: ['*'] })
      .expect(201);
    const key = (created.body as { api_key: string }).api_key;
    const forKey = pairs(limitsOf(await get(freshIp(), '/v1/ratelimits', key).expect(200)));
    const forJwt = pairs(limitsOf(await get(freshIp(), '/v1/ratelimits', owner).expect(200)));
    // POST /v1/apikeys and every DELETE users route (sessions, staff, invitations) are JWT only; GET users is not
    // (GET /v1/users/me takes any credential), so it stays.
    expect(forJwt).toEqual(expect.arrayContaining(['POST apikeys', 'DELETE users']));
    expect(forKey).not.toContain('POST apikeys');
    expect(forKey).not.toContain('DELETE users');
    expect(forKey).toEqual(expect.arrayContaining(['GET users', 'GET apikeys', 'POST products', 'GET ratelimits']));
  });

  it('needs a credential: none → 401, an unknown one → 401', async () => {
    const none = await get(freshIp(), '/v1/ratelimits').expect(401);
    expect(none.body).toMatchObject({ error: ['error_jwt_is_required'] });
    await get(freshIp(), '/v1/ratelimits', 'not-a-credential').expect(401);
  });
});
