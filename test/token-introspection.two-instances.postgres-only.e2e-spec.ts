import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Introspection on one instance sees a logout on another within a second (docs/contract.md "Other systems plug
 * in"): B has the token cached as live, A ends the session, B's revocation notice evicts it.
 */
describe('introspection across two instances on PostgreSQL + Redis', () => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await provisionDatabase();
    a = await startTestApp({ database, env: { REDIS_URL } });
    b = await startTestApp({ database, env: { REDIS_URL } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('active on B, then {"active": false} on B within 1 s of a logout on A (5 times)', async () => {
    const [company] = await createCompanies(a, 'Alpha');
    const service = await createAccount(a, [company.id], ['tokens:introspect', 'apikeys:manage']);
    const serviceJwt = (await login(a, service, company.id)).jwt;
    const key = (await authed(a, serviceJwt).post('/v1/apikeys', { name: 'svc', permissions: ['tokens:introspect'] }))
      .body.api_key as string;
    const person = await createAccount(a, [company.id], ['users:read']);
    const introspectOnB = async (token: string) =>
      (await b.http().post('/v1/tokens/introspect').set('authorization', key).send({ token }).expect(200)).body;

    for (let round = 0; round < 5; round++) {
      const session = await login(a, person, company.id);
      expect(await introspectOnB(session.jwt)).toMatchObject({ active: true, sid: session.session_id });
      expect(await introspectOnB(session.jwt)).toMatchObject({ active: true });
      const started = Date.now();
      await authed(a, session.jwt).post('/v1/users/logout').expect(204);
      let answer = await introspectOnB(session.jwt);
      while (answer.active && Date.now() - started < 2000) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        answer = await introspectOnB(session.jwt);
      }
      expect({ round, answer }).toEqual({ round, answer: { active: false } });
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });
});
