import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Account, createAccount, createCompanies, login } from './support/fixtures';
import { issueScimToken, PATCH_OP, scimClient } from './support/scim';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A SCIM deactivation answered by instance A: instance B, which had the member's JWT and API key cached, refuses
 * them within 1 second (in practice on its very next request, the bus having waited for B's confirmation), with
 * Redis pub/sub or PostgreSQL LISTEN/NOTIFY alone.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
])('SCIM deactivation across two instances on %s', (label, env: Record<string, string>) => {
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

  it('deactivated on A (Okta boolean, Entra "False"): B refuses the cached JWT and API key within 1 s, 5 rounds', async () => {
    const scim = scimClient(a, (await issueScimToken(a, ownerJwt)).token);
    const member: Account = await createAccount(a, [company.id], ['users:read', 'apikeys:manage']);
    const measured: number[] = [];
    let staleAnswers = 0;
    for (let round = 0; round < 5; round++) {
      const jwt = (await login(a, member, company.id)).jwt;
      const key = (
        await a
          .http()
          .post('/v1/apikeys')
          .set('authorization', jwt)
          .send({ name: `k${round}`, permissions: ['users:read'] })
          .expect(201)
      ).body.api_key as string;
      for (const credential of [jwt, key]) {
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
      }
      const value = round % 2 === 0 ? false : 'False';
      const started = performance.now();
      await scim
        .patch(`/Users/${member.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value }] })
        .expect(200);
      for (const credential of [jwt, key]) {
        let status = 200;
        while (status === 200 && performance.now() - started < 1000) {
          status = (await b.http().get('/v1/users').set('authorization', credential)).status;
          if (status === 200) staleAnswers++;
        }
        expect({ round, status }).toEqual({ round, status: 400 });
      }
      measured.push(performance.now() - started);
      const refused = await b
        .http()
        .post('/v1/users/authenticatefinish')
        .send({ email: member.email, password: member.password, company_id: company.id });
      expect({ round, status: refused.status, error: refused.body.error }).toEqual({
        round,
        status: 403,
        error: ['error_company_not_member'],
      });
      await scim
        .patch(`/Users/${member.id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', value: { active: round % 2 === 0 ? true : 'True' } }],
        })
        .expect(200);
    }
    expect(Math.max(...measured)).toBeLessThan(1000);
    // In fact on B's very next request: the PATCH answered only once B had confirmed the notice.
    expect(staleAnswers).toBe(0);
    // Every deactivation waited for B's confirmation rather than running into the timeout.
    expect(a.logs.text).not.toContain('not confirmed');
    console.log(
      `SCIM deactivation → refused on the other instance (${label}), ms from the PATCH to both refusals: ` +
        measured.map((ms) => ms.toFixed(1)).join(', '),
    );
  });
});
