import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Account, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, TEST_ENV, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = promisify(execFile);

/**
 * Revocation takes effect on every instance at once: two app instances share PostgreSQL (with Redis pub/sub, or
 * with PostgreSQL LISTEN/NOTIFY when no Redis is configured), each caching the tokens it has seen.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
])('two instances on %s', (_label, env: Record<string, string>) => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let account: Account;
  let alpha: { id: number };
  let beta: { id: number };

  const me = (app: TestApp, jwt: string) => app.http().get('/v1/users/me').set('authorization', jwt);

  beforeAll(async () => {
    database = await provisionDatabase();
    a = await startTestApp({ database, env });
    b = await startTestApp({ database, env });
    [alpha, beta] = await createCompanies(a, 'Alpha', 'Beta');
    account = await createAccount(a, [alpha.id, beta.id]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('logout on A: B, which had the token cached, rejects the very next request (20 times)', async () => {
    for (let i = 0; i < 20; i++) {
      const session = await login(a, account, alpha.id);
      await me(b, session.jwt).expect(200);
      await me(b, session.jwt).expect(200);
      await a.http().post('/v1/users/logout').set('authorization', session.jwt).expect(204);
      const res = await me(b, session.jwt);
      expect({ round: i, status: res.status, error: res.body.error }).toEqual({
        round: i,
        status: 400,
        error: ['error_jwt_blacklisted'],
      });
    }
    // Every logout waited for B's confirmation rather than running into the timeout.
    expect(a.logs.text).not.toContain('not confirmed');
  });

  it('switch on B: A rejects the old token and accepts the new one', async () => {
    for (let i = 0; i < 5; i++) {
      const session = await login(a, account, alpha.id);
      await me(a, session.jwt).expect(200);
      const switched = await b
        .http()
        .post('/v1/users/changeworkingcompany')
        .set('authorization', session.jwt)
        .send({ company_id: beta.id })
        .expect(200);
      expect((await me(a, session.jwt)).body.error).toEqual(['error_jwt_blacklisted']);
      expect((await me(a, switched.body.jwt).expect(200)).body.company.id).toBe(beta.id);
    }
  });

  it('session revoked through the operator CLI: both instances reject the token at once', async () => {
    const cli = join(__dirname, '..', 'dist', 'src', 'cli.js');
    if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    const session = await login(a, account, alpha.id);
    await me(a, session.jwt).expect(200);
    await me(b, session.jwt).expect(200);
    const { stdout } = await run(process.execPath, [cli, 'session:revoke', '--id', session.session_id], {
      env: { ...process.env, ...TEST_ENV, ...database.env, ...env },
      timeout: 30_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ id: session.session_id, revoked: true });
    for (const app of [a, b]) expect((await me(app, session.jwt)).body.error).toEqual(['error_jwt_blacklisted']);
  });
});
