import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Account, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A permission change made on one instance reaches a credential another instance has cached, on its very next
 * request: two instances share PostgreSQL, with Redis pub/sub or with PostgreSQL LISTEN/NOTIFY alone.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
])('permission change across two instances on %s', (_label, env: Record<string, string>) => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let company: { id: number };
  let ownerJwt: string;

  beforeAll(async () => {
    database = await provisionDatabase();
    a = await startTestApp({ database, env });
    b = await startTestApp({ database, env });
    [company] = await createCompanies(a, 'Alpha');
    ownerJwt = (await login(a, await createAccount(a, [company.id], ['*']), company.id)).jwt;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('revoking users:read on A: B, which had the token and an API key cached, refuses the very next request (10 times)', async () => {
    const target: Account = await createAccount(a, [company.id], ['users:read', 'apikeys:manage']);
    const jwt = (await login(a, target, company.id)).jwt;
    const key = (
      await a
        .http()
        .post('/v1/apikeys')
        .set('authorization', jwt)
        .send({ name: 'k', permissions: ['users:read'] })
        .expect(201)
    ).body.api_key as string;
    const setPermissions = (permissions: string[]) =>
      a
        .http()
        .put(`/v1/users/${target.id}/permissions`)
        .set('authorization', ownerJwt)
        .send({ permissions })
        .expect(200);

    for (let round = 0; round < 10; round++) {
      for (const credential of [jwt, key]) {
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
      }
      await setPermissions(['apikeys:manage']);
      for (const credential of [jwt, key]) {
        const res = await b.http().get('/v1/users').set('authorization', credential);
        expect({ round, status: res.status, error: res.body.error }).toEqual({
          round,
          status: 403,
          error: ['error_permission_denied'],
        });
      }
      await setPermissions(['apikeys:manage', 'users:read']);
    }
    // Every change waited for B's confirmation rather than running into the timeout.
    expect(a.logs.text).not.toContain('not confirmed');
  });
});
