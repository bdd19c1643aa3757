import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { expectError } from './support/expectations';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two instances on one PostgreSQL: a removal or a password change made on A is refused on B at B's next request
 * (B had the credentials cached), and a TOTP code used on A is refused on B.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
])('staff accounts across two instances on %s', (_label, env: Record<string, string>) => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let clock: ManualClock;
  let company: { id: number };
  let ownerJwt: string;

  beforeAll(async () => {
    database = await provisionDatabase();
    clock = new ManualClock('2026-11-21T03:00:00Z');
    a = await startTestApp({ database, env, clock });
    b = await startTestApp({ database, env, clock });
    [company] = await createCompanies(a, 'Alpha');
    ownerJwt = (await login(a, await createAccount(a, [company.id], ['*']), company.id)).jwt;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a removal on A: B refuses the token and the API key it had cached, on the very next request', async () => {
    const target = await createAccount(a, [company.id], ['users:read', 'apikeys:manage']);
    const jwt = (await login(a, target, company.id)).jwt;
    const key = (
      await authed(a, jwt)
        .post('/v1/apikeys', { name: 'k', permissions: ['users:read'] })
        .expect(201)
    ).body.api_key;
    for (const credential of [jwt, key]) {
      await authed(b, credential).get('/v1/users').expect(200);
      await authed(b, credential).get('/v1/users').expect(200);
    }
    await authed(a, ownerJwt).delete(`/v1/users/${target.id}`).expect(204);
    for (const credential of [jwt, key]) {
      expectError(await authed(b, credential).get('/v1/users'), 400, 'error_jwt_blacklisted');
    }
  });

  it('a password change on A: B refuses the account’s other sessions on the very next request', async () => {
    const target = await createAccount(a, [company.id], ['users:read']);
    const here = (await login(a, target, company.id)).jwt;
    const other = (await login(a, target, company.id)).jwt;
    await authed(b, other).get('/v1/users').expect(200);
    await authed(b, other).get('/v1/users').expect(200);
    await authed(a, here)
      .post('/v1/users/me/password', { current_password: target.password, new_password: 'Two-Instance-Pass-66' })
      .expect(204);
    expectError(await authed(b, other).get('/v1/users'), 400, 'error_jwt_blacklisted');
    await authed(b, here).get('/v1/users').expect(200);
  });

  it('a TOTP code used on A is refused on B', async () => {
    const target = await createAccount(a, [company.id], []);
    const jwt = (await login(a, target, company.id)).jwt;
    const { secret } = (
      await authed(a, jwt).post('/v1/users/me/mfa/totp', { current_password: target.password }).expect(201)
    ).body;
    await authed(a, jwt)
      .post('/v1/users/me/mfa/totp/confirm', { otp: totpCodeAt(secret, clock.nowMs()) })
      .expect(204);
    clock.advance(30_000);
    const body = { email: target.email, password: target.password, company_id: company.id };
    const otp = totpCodeAt(secret, clock.nowMs());
    await a
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ ...body, otp })
      .expect(200);
    expectError(
      await b
        .http()
        .post('/v1/users/authenticatefinish')
        .send({ ...body, otp }),
      401,
      'error_otp_invalid',
    );
  });
});
