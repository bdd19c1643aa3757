import { QuotaActions } from '../src/operations/cli/quota-actions';
import { RateLimitQuotas } from '../src/rate-limiting/quotas/rate-limit-quotas';
import { createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md, "Beyond the bucket": quotas, on one instance without Redis (counted in process memory), on
 * both databases (the quota table's statements): a day quota set and removed through the CLI's actions,
 * refusing with Retry-After until UTC midnight, its fields, and GET /v1/ratelimits.
 */
describe('quotas on one instance (memory counters)', () => {
  let t: TestApp;
  let jwt: string;
  let companyId: number;
  // 21:00 UTC: three hours before the day ends.
  const clock = new ManualClock('2030-05-06T21:00:00Z');

  const me = () => t.http().get('/v1/users/me').set('authorization', jwt);

  beforeAll(async () => {
    t = await startTestApp({ clock });
    [{ id: companyId }] = await createCompanies(t, 'Day Co');
    jwt = (await login(t, await createAccount(t, [companyId]), companyId)).jwt;
  });

  afterAll(() => t?.close());

  it('admits the day quota, then 429 with Retry-After until midnight UTC; lists and removes it', async () => {
    const actions = t.app.get(QuotaActions, { strict: false });
    const quota = await actions.set({ companyId, apiKeyId: null, per: 'day', limit: 3 });
    await t.app.get(RateLimitQuotas, { strict: false }).reload();
    expect(await actions.list(companyId)).toEqual([quota]);

    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await me());
    expect(statuses.map((res) => res.status)).toEqual([200, 200, 200, 429]);
    expect(statuses[0].headers['ratelimit-policy']).toMatch(/^"get-users";q=\d+;w=3, "day";q=3;w=86400$/);
    expect(statuses[0].headers['ratelimit']).toMatch(/^"get-users";r=\d+;t=\d+, "day";r=2;t=10800$/);
    expect(statuses[3].headers['retry-after']).toBe('10800');
    expect(statuses[3].body).toEqual(['error_rate_limit_exceed']);

    const listed = await t.http().get('/v1/ratelimits').set('authorization', jwt);
    expect(listed.status).toBe(200);
    expect(listed.body.quotas).toEqual([
      {
        api_key_id: null,
        per: 'day',
        limit: 3,
        window_seconds: 86400,
        remaining: 0,
        resets_at: '2030-05-07T00:00:00.000Z',
      },
    ]);

    // The administration page's read: the company's quotas.
    const company = await t.http().get('/v1/ratelimits/company').set('authorization', jwt);
    expect(company.body.quotas).toEqual([{ id: quota.id, api_key_id: null, per: 'day', limit: 3 }]);

    await actions.unset(quota.id);
    await t.app.get(RateLimitQuotas, { strict: false }).reload();
    expect(await actions.list()).toEqual([]);
    const after = await me();
    expect(after.status).toBe(200);
    expect(after.headers['ratelimit']).not.toMatch(/day/);
    expect((await t.http().get('/v1/ratelimits').set('authorization', jwt)).body.quotas).toEqual([]);
    expect((await t.http().get('/v1/ratelimits/company').set('authorization', jwt)).body.quotas).toEqual([]);
  });
});
