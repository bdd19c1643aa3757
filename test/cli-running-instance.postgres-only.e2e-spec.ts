import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { CHILD_TEST_ENV, killChildren, requireBuild, runCli } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** docs/contract.md: every change the CLI makes takes effect on every running instance within 1 second. */
const WITHIN_MS = 1000;

jest.setTimeout(90_000);

/**
 * The operator CLI (a process of its own) changes an account while an instance that has the account's
 * credentials cached keeps serving. Without a notice the instance would trust its cache for 30 s; the test
 * asserts the change is seen within 1 s of the CLI's exit, and prints how long it took.
 */
describe.each([
  ['PostgreSQL alone (LISTEN/NOTIFY)', {}],
  ['PostgreSQL + Redis (pub/sub)', { REDIS_URL }],
])('CLI changes seen by a running instance: %s', (label, env: Record<string, string>) => {
  let database: ProvisionedDatabase;
  let t: TestApp;
  let account: Account;
  let alpha: { id: number };
  let beta: { id: number };
  const figures: string[] = [];

  beforeAll(async () => {
    requireBuild();
    database = await provisionDatabase();
    t = await startTestApp({ database, env });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    account = await createAccount(t, [alpha.id, beta.id], ['*']);
  });
  afterAll(async () => {
    process.stdout.write(`${label}: ${figures.join('; ')}\n`);
    await killChildren();
    await t?.close();
    await database?.drop();
  });

  async function cli(args: string[], input = ''): Promise<Record<string, unknown>> {
    const result = await runCli(args, { ...CHILD_TEST_ENV, ...database.env, ...env }, 30_000, input);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  }

  /** Asks until `seen` holds; fails unless it holds within 1 s of `since`. Returns the milliseconds it took. */
  async function seenWithin(what: string, since: number, seen: () => Promise<boolean>): Promise<number> {
    for (;;) {
      if (await seen()) {
        const ms = Date.now() - since;
        figures.push(`${what} ${ms} ms`);
        expect({ what, ms: ms <= WITHIN_MS }).toEqual({ what, ms: true });
        return ms;
      }
      if (Date.now() - since > WITHIN_MS) throw new Error(`${what}: not seen within ${WITHIN_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('membership:add narrowing the permissions: the cached token loses them', async () => {
    const session = await login(t, account, alpha.id);
    const key = await authed(t, session.jwt)
      .post('/v1/apikeys', { name: 'reporting', permissions: ['products:read', 'users:read'] })
      .expect(201);
    // Cached on the instance: from here on, only a notice can change the answer within 30 s.
    await authed(t, session.jwt).get('/v1/products').expect(200);
    await authed(t, key.body.api_key).get('/v1/products').expect(200);

    await cli([
      'membership:add',
      '--email',
      account.email,
      '--company',
      String(alpha.id),
      '--permissions',
      'users:read',
    ]);
    const done = Date.now();
    await seenWithin('permission cut (JWT)', done, async () => {
      const res = await authed(t, session.jwt).get('/v1/products');
      return res.status === 403 && res.body.error?.[0] === 'error_permission_denied';
    });
    await seenWithin('permission cut (API key)', done, async () => {
      const res = await authed(t, key.body.api_key).get('/v1/products');
      return res.status === 403;
    });
    await authed(t, session.jwt).get('/v1/users').expect(200);
  });

  it('membership:remove: the sessions and API keys of that company are blacklisted, the other company goes on', async () => {
    await cli(['membership:add', '--email', account.email, '--company', String(alpha.id), '--permissions', '*']);
    const inAlpha = await login(t, account, alpha.id);
    const inBeta = await login(t, account, beta.id);
    const key = await authed(t, inAlpha.jwt)
      .post('/v1/apikeys', { name: 'k', permissions: ['products:read'] })
      .expect(201);
    await authed(t, inAlpha.jwt).get('/v1/products').expect(200);
    await authed(t, key.body.api_key).get('/v1/products').expect(200);
    await authed(t, inBeta.jwt).get('/v1/products').expect(200);

    // A second `*` holder: the CLI keeps a company's last one.
    await createAccount(t, [alpha.id], ['*']);
    const removed = await cli(['membership:remove', '--email', account.email, '--company', String(alpha.id)]);
    expect(removed).toEqual({ employee_id: account.id, company_id: alpha.id, removed: true });
    const done = Date.now();
    await seenWithin('membership removal (JWT)', done, async () => {
      const res = await authed(t, inAlpha.jwt).get('/v1/products');
      return res.status === 400 && res.body.error?.[0] === 'error_jwt_blacklisted';
    });
    await seenWithin('membership removal (API key)', done, async () => {
      const res = await authed(t, key.body.api_key).get('/v1/products');
      return res.status === 400 && res.body.error?.[0] === 'error_jwt_blacklisted';
    });
    await authed(t, inBeta.jwt).get('/v1/products').expect(200);
    await t
      .http()
      .post('/v1/users/refreshtoken')
      .send({ refresh_token: inAlpha.refresh_token })
      .expect(400)
      .expect((res) => expect(res.body.error).toEqual(['error_jwt_blacklisted']));
    await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: alpha.id })
      .expect(403);
  });

  it('employee:set-password (from standard input): every session ends, the old password stops working', async () => {
    const inBeta = await login(t, account, beta.id);
    await authed(t, inBeta.jwt).get('/v1/users/me').expect(200);
    const newPassword = `new-${account.password}`;

    const changed = await cli(['employee:set-password', '--email', account.email], `${newPassword}\n`);
    expect(changed).toEqual({ id: account.id, email: account.email });
    const done = Date.now();
    await seenWithin('password change (session ended)', done, async () => {
      const res = await authed(t, inBeta.jwt).get('/v1/users/me');
      return res.status === 400 && res.body.error?.[0] === 'error_jwt_blacklisted';
    });
    await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: beta.id })
      .expect(401);
    account = { ...account, password: newPassword };
    await login(t, account, beta.id);
  });

  it('the instance never waited out the confirmation timeout', () => {
    expect(t.logs.text).not.toContain('not confirmed');
  });
});
