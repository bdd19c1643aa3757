import { Client } from 'pg';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { startTestApp, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * docs/contract.md "Company single sign-on", enforcement: turning `enforced` on (answered by instance A) ends the
 * company's password sessions on every instance within 1 second: instance B, which had their tokens cached,
 * refuses them from its next request on, with Redis pub/sub or PostgreSQL LISTEN/NOTIFY alone.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
])('SSO enforcement across two instances on %s', (label, env: Record<string, string>) => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let provider: JoseIdp;

  beforeAll(async () => {
    database = await provisionDatabase();
    const settings = { ...env, SSO_INSECURE_ISSUERS: '127.0.0.1' };
    a = await startTestApp({ database, env: settings });
    b = await startTestApp({ database, env: settings });
    provider = new JoseIdp('staff-auth');
    await provider.start();
  });
  afterAll(async () => {
    await provider?.stop();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('turned on at A: B refuses the password sessions it had cached within 1 s of the change', async () => {
    const [company] = await createCompanies(a, `Enforcing ${label}`);
    const owner = await createAccount(a, [company.id], ['*']);
    const caller = await login(a, owner, company.id);
    const members = await Promise.all([1, 2, 3].map(() => createAccount(a, [company.id], ['users:read'])));
    const jwts = await Promise.all(members.map(async (member) => (await login(a, member, company.id)).jwt));
    for (const jwt of jwts) {
      await b.http().get('/v1/users').set('authorization', jwt).expect(200);
      await b.http().get('/v1/users').set('authorization', jwt).expect(200);
    }
    const connection = (enforced: boolean) => ({
      issuer: provider.issuer,
      client_id: 'staff-auth',
      client_secret: 'a-client-secret-of-the-test',
      email_domains: ['enforcing.example'],
      enforced,
      jit: { enabled: false, permissions: [] },
    });
    // The second starts when the change is made, its transaction's commit, seen from a connection of the test's
    // own: before that, the PUT reads the issuer's discovery document, which a loaded machine can make slow.
    const watcher = new Client({ connectionString: database.url });
    await watcher.connect();
    const answered = authed(a, caller.jwt)
      .put('/v1/sso/connection', connection(true))
      .expect(200)
      .then(() => undefined);
    answered.catch(() => undefined); // awaited below, after the watch
    let committedAt: number | undefined;
    try {
      const deadline = performance.now() + 30_000;
      while (committedAt === undefined && performance.now() < deadline) {
        const { rows } = await watcher.query<{ enforced: boolean }>(
          'SELECT enforced FROM sso_connection WHERE company_id = $1',
          [company.id],
        );
        if (rows[0]?.enforced) committedAt = performance.now();
      }
    } finally {
      await watcher.end();
    }
    if (committedAt === undefined) await answered; // its failure says why
    expect(committedAt).toBeDefined();
    let status = 200;
    while (status === 200 && performance.now() - committedAt! < 1000)
      status = (await b.http().get('/v1/users').set('authorization', jwts[0])).status;
    const ms = performance.now() - committedAt!;
    expect(status).toBe(400);
    expect(ms).toBeLessThan(1000);
    await answered;
    // In fact, once the PUT has answered, on B's very next request: it answered only once B had confirmed
    // every notice.
    for (const jwt of jwts) await b.http().get('/v1/users').set('authorization', jwt).expect(400);
    // The caller's own session goes on, on both instances.
    await b.http().get('/v1/users').set('authorization', caller.jwt).expect(200);
    console.log(`enforcement → password sessions refused on the other instance (${label}) ${ms.toFixed(1)} ms`);
  });
});
