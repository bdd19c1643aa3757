import type { Response } from 'supertest';
import { FLEET_PRESENCE } from '../src/platform/counters/counters.module';
import type { FleetPresence } from '../src/platform/counters/fleet-presence';
import { QuotaActions } from '../src/operations/cli/quota-actions';
import { RateLimitQuotas } from '../src/rate-limiting/quotas/rate-limit-quotas';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { RedisServer } from './support/redis-server';
import { startTestApp, type TestApp } from './support/test-app';

const hourItem = (res: Response, field: 'ratelimit-policy' | 'ratelimit'): string | undefined =>
  /"hour";[^,]*/.exec(String(res.headers[field]))?.[0];

/**
 * docs/contract.md, "Beyond the bucket": quotas, "on a Redis outage each instance counts its share of the limit,
 * as buckets do". Two instances in this process share PostgreSQL, one injected clock and a Redis of this test's
 * own, killed in the middle of the hour: each instance then admits ceil(limit / 2) more in memory, and says so.
 */
describe('quotas when Redis is killed mid-window (two instances)', () => {
  let redis: RedisServer;
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let jwt: string;
  const clock = new ManualClock('2030-05-06T10:30:00Z');

  const me = (t: TestApp) => t.http().get('/v1/users/me').set('authorization', jwt);

  beforeAll(async () => {
    redis = await RedisServer.onFreePort();
    await redis.start();
    database = await provisionDatabase('postgres');
    a = await startTestApp({ database, clock, env: { REDIS_URL: redis.url } });
    b = await startTestApp({ database, clock, env: { REDIS_URL: redis.url } });
    const [{ id: companyId }] = await createCompanies(a, 'Outage Co');
    jwt = (await login(a, await createAccount(a, [companyId]), companyId)).jwt;
    await a.app.get(QuotaActions, { strict: false }).set({ companyId, apiKeyId: null, per: 'hour', limit: 10 });
    for (const t of [a, b]) await t.app.get(RateLimitQuotas, { strict: false }).reload();
    // Each instance must have seen the other alive (heartbeats every second) to know its share.
    const presence = (t: TestApp) => t.app.get<FleetPresence>(FLEET_PRESENCE, { strict: false });
    for (let i = 0; i < 100 && (presence(a).size < 2 || presence(b).size < 2); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect([presence(a).size, presence(b).size]).toEqual([2, 2]);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.kill();
    await database?.drop();
  });

  it('counts on Redis while it runs, then each instance its share in memory; never more than that', async () => {
    const before = [];
    for (let i = 0; i < 4; i++) before.push(await me(i % 2 ? b : a));
    expect(before.map((res) => hourItem(res, 'ratelimit'))).toEqual([
      '"hour";r=9;t=1800',
      '"hour";r=8;t=1800',
      '"hour";r=7;t=1800',
      '"hour";r=6;t=1800',
    ]);

    await redis.kill();
    for (const t of [a, b]) {
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await me(t));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(answers.map((res) => hourItem(res, 'ratelimit'))).toEqual([
        '"hour";r=4;t=1800',
        '"hour";r=3;t=1800',
        '"hour";r=2;t=1800',
        '"hour";r=1;t=1800',
        '"hour";r=0;t=1800',
        '"hour";r=0;t=1800',
        '"hour";r=0;t=1800',
      ]);
      expect(hourItem(answers[0], 'ratelimit-policy')).toBe('"hour";q=5;w=3600');
      expect(answers[6].headers['retry-after']).toBe('1800');
      expect(answers[6].body).toEqual(['error_rate_limit_exceed']);
    }

    // GET /v1/ratelimits answers too, with the share that applies.
    const listed = await a.http().get('/v1/ratelimits').set('authorization', jwt);
    expect(listed.status).toBe(200);
    expect(listed.body.quotas).toEqual([expect.objectContaining({ per: 'hour', limit: 5, remaining: 0 })]);
  });
});
