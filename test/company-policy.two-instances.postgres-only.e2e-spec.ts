import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { expectError } from './support/expectations';
import { type Account, createAccount, createCompanies } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/** docs/contract.md "Company policies and roles": a change holds on every instance within 1 second. */
const BUDGET_MS = 1000;
const OWNER_IP = '198.51.100.7';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two instances on one PostgreSQL database, one injected clock: a policy saved on A refuses on B the credentials B
 * had cached, and a session found idle on one instance is refused on the other at once. The instance bus carries
 * each notice over Redis pub/sub and LISTEN/NOTIFY when Redis is there, over LISTEN/NOTIFY alone when it is not
 * configured or does not answer.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
  // Configured but not answering (nothing listens on port 1): the notice still travels over LISTEN/NOTIFY.
  ['PostgreSQL with Redis down', { REDIS_URL: 'redis://127.0.0.1:1' }],
])('company policy across two instances on %s', (_label, redis: Record<string, string>) => {
  const clock = new ManualClock('2026-11-21T03:00:00Z');
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let owner: Account;

  const call = (app: TestApp, ip: string, credential: string) => ({
    get: (path: string) => app.http().get(path).set('x-forwarded-for', ip).set('authorization', credential),
    put: (path: string, body: object) =>
      app.http().put(path).set('x-forwarded-for', ip).set('authorization', credential).send(body),
  });
  const logIn = async (app: TestApp, ip: string, account: Account, companyId: number) => {
    const res = await app
      .http()
      .post('/v1/users/authenticatefinish')
      .set('x-forwarded-for', ip)
      .send({ email: account.email, password: account.password, company_id: companyId });
    expect(res.status).toBe(200);
    return res.body as { jwt: string; session_id: string };
  };

  beforeAll(async () => {
    database = await provisionDatabase();
    const env = { TRUST_PROXY: '127.0.0.1', ...redis };
    a = await startTestApp({ database, env, clock });
    b = await startTestApp({ database, env, clock });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('an allowlist saved on A refuses at once on B the credentials B had cached', async () => {
    const [company] = await createCompanies(a, 'Two Alpha');
    owner = await createAccount(a, [company!.id], ['*']);
    const admin = await logIn(a, OWNER_IP, owner, company!.id);
    const traveller = await logIn(a, '192.0.2.60', owner, company!.id);
    // Cached on B, from an address the list will not hold.
    await call(b, '192.0.2.60', traveller.jwt).get('/v1/users/me').expect(200);
    await call(b, '192.0.2.61', admin.jwt).get('/v1/users/me').expect(200);

    const saved = await call(a, OWNER_IP, admin.jwt).put('/v1/company/policy', {
      mfa_required: false,
      session_days: 14,
      idle_timeout_minutes: null,
      ip_allowlist: [OWNER_IP, '203.0.113.0/24'],
    });
    expect(saved.status).toBe(200);
    const answered = performance.now();
    expectError(await call(b, '192.0.2.61', admin.jwt).get('/v1/users/me'), 403, 'error_ip_not_allowed');
    // The traveller's session, outside the list, ended with the change.
    expectError(await call(b, '203.0.113.1', traveller.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    await call(b, '203.0.113.1', admin.jwt).get('/v1/users/me').expect(200);
    expect(performance.now() - answered).toBeLessThan(BUDGET_MS);
  });

  it('the idle time-out counts a use on either instance; a session found idle on A is refused on B', async () => {
    const [company] = await createCompanies(a, 'Two Idle');
    const person = await createAccount(a, [company!.id], ['*']);
    const admin = await logIn(a, OWNER_IP, person, company!.id);
    await call(a, OWNER_IP, admin.jwt)
      .put('/v1/company/policy', { mfa_required: false, session_days: 14, idle_timeout_minutes: 15, ip_allowlist: [] })
      .expect(200);
    const session = await logIn(b, OWNER_IP, person, company!.id);
    clock.advance(14 * 60_000);
    await call(b, OWNER_IP, session.jwt).get('/v1/users/me').expect(200);
    // B writes the use off the request's path (at most once a minute); A reads it with the token.
    for (let tries = 0; ; tries++) {
      const [row] = await a.app
        .get(DataSource)
        .query('SELECT last_used_at FROM login_session WHERE id = $1', [session.session_id]);
      if (new Date(row.last_used_at).getTime() === clock.nowMs()) break;
      if (tries > 100) throw new Error('the use on B was never recorded');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    clock.advance(14 * 60_000);
    await call(a, OWNER_IP, session.jwt).get('/v1/users/me').expect(200);
    clock.advance(15 * 60_000);
    expectError(await call(a, OWNER_IP, session.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
    expectError(await call(b, OWNER_IP, session.jwt).get('/v1/users/me'), 400, 'error_jwt_blacklisted');
  });
});
