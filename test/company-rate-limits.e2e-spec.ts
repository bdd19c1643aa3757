import { DataSource } from 'typeorm';
import { putOverride } from '../src/rate-limiting/overrides/override-records';
import { RateLimitOverrides } from '../src/rate-limiting/overrides/rate-limit-overrides';
import { createAccount, createCompanies, type LoginBody } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

// docs/contract.md, "Rate limits a client can plan with and an operator can steer": the administration page shows
// the company's limits and its overrides (read-only), and which of its credentials were limited in the last hour.
interface CompanyLimits {
  limits: Array<{ method: string; group: string; capacity: number; effective_capacity: number }>;
  overrides: Array<{ api_key_id: string | null; method: string; group: string; limit: number; mode: string }>;
  limited: Array<{
    kind: string;
    credential_id: string;
    employee: { id: number; email: string };
    method: string;
    group: string;
    refused: number;
    shadow_limited: number;
    first_at: string;
    last_at: string;
  }>;
  window_seconds: number;
}

let addresses = 0;
const freshIp = () => `198.51.100.${++addresses}`;

describe('GET /v1/ratelimits/company', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: number;
  let owner: string;
  let reader: LoginBody;
  let readerEmail: string;
  let key: string;
  let keyId: string;
  let betaOwner: string;

  const get = (path: string, authorization: string, ip = freshIp()) =>
    t.http().get(path).set('x-forwarded-for', ip).set('authorization', authorization);
  const companyView = async (authorization: string) =>
    (await get('/v1/ratelimits/company', authorization).expect(200)).body as CompanyLimits;

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T12:00:00Z');
    t = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' } });
    const [a, b] = await createCompanies(t, 'Alpha', 'Beta');
    alpha = a.id;
    const loginAs = async (companyId: number, permissions: Parameters<typeof createAccount>[2]) => {
      const account = await createAccount(t, [companyId], permissions);
      const res = await t.http().post('/v1/users/authenticatefinish').set('x-forwarded-for', freshIp()).send({
        email: account.email,
        password: account.password,
        company_id: companyId,
      });
      return { body: res.body as LoginBody, email: account.email };
    };
    owner = (await loginAs(alpha, ['*'])).body.jwt;
    ({ body: reader, email: readerEmail } = await loginAs(alpha, ['products:read']));
    betaOwner = (await loginAs(b.id, ['*'])).body.jwt;
    const created = await t
      .http()
      .post('/v1/apikeys')
      .set('x-forwarded-for', freshIp())
      .set('authorization', owner)
      .send({ name: 'sync', permissions: ['products:read'] })
      .expect(201);
    key = (created.body as { api_key: string }).api_key;
    keyId = (created.body as { id: string }).id;
  });
  afterAll(() => t?.close());

  it("shows the table, the company's overrides, and the credentials refused or shadow-limited", async () => {
    const { manager } = t.app.get(DataSource);
    const now = clock.now();
    const base = { companyId: alpha, method: 'GET', group: 'products', expiresAt: null };
    await putOverride(manager, { ...base, apiKeyId: null, limit: 2, mode: 'enforce' }, now);
    await putOverride(manager, { ...base, apiKeyId: keyId, limit: 1, mode: 'shadow' }, now);
    await t.app.get(RateLimitOverrides).reload();

    // The reader: two admitted, then refused by the company's enforced override.
    const ip = freshIp();
    for (const status of [200, 200, 429, 429]) await get('/v1/products', reader.jwt, ip).expect(status);
    // The key: its own shadow override wins over the company's; the table admits, the shadow counts.
    const keyIp = freshIp();
    for (let i = 0; i < 3; i++) await get('/v1/products', key, keyIp).expect(200);

    const view = await companyView(owner);
    expect(view.window_seconds).toBe(3600);
    expect(view.limits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'GET', group: 'products', capacity: 30 * 1000, effective_capacity: 2 }),
        expect.objectContaining({ method: 'GET', group: 'orders', capacity: 30 * 1000, effective_capacity: 30 * 1000 }),
      ]),
    );
    expect(view.overrides).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ api_key_id: null, limit: 2, mode: 'enforce' }),
        expect.objectContaining({ api_key_id: keyId, limit: 1, mode: 'shadow' }),
      ]),
    );
    expect(view.overrides).toHaveLength(2);
    expect(view.limited).toEqual([
      expect.objectContaining({ kind: 'api_key', credential_id: keyId, refused: 0, shadow_limited: 2 }),
      {
        kind: 'jwt',
        credential_id: reader.session_id,
        employee: { id: reader.employee.id, email: readerEmail },
        method: 'GET',
        group: 'products',
        refused: 2,
        shadow_limited: 0,
        first_at: now.toISOString(),
        last_at: now.toISOString(),
      },
    ]);

    // Another company sees none of it.
    const beta = await companyView(betaOwner);
    expect(beta.overrides).toEqual([]);
    expect(beta.limited).toEqual([]);
    expect(beta.limits.find((l) => l.group === 'products' && l.method === 'GET')?.effective_capacity).toBe(30_000);

    // An hour later the refusals are forgotten; the overrides stay.
    clock.advance(60 * 60 * 1000 + 1);
    const later = await companyView(owner);
    expect(later.limited).toEqual([]);
    expect(later.overrides).toHaveLength(2);
  });

  it('needs auditevents:read (403 otherwise) and a credential (401)', async () => {
    const denied = await get('/v1/ratelimits/company', reader.jwt).expect(403);
    expect(denied.body).toMatchObject({ error: ['error_permission_denied'] });
    await t.http().get('/v1/ratelimits/company').set('x-forwarded-for', freshIp()).expect(401);
  });
});
