import { DataSource } from 'typeorm';
import type { EmbeddedPool } from '../src/platform/database/embedded/embedded-pg-driver';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

const READS = 20;

/**
 * docs/contract.md "Shedding load": under an overload of reads, logouts and logins still get through. On the
 * embedded database the one session is queued, and the requests of the routes that must get through (health,
 * logout and revocations, logins) wait in a first lane (src/platform/database/query-lane.ts): a queue of reads
 * does not hold them. The session is held here so that every request below is queued before any is served.
 */
describe('the embedded database serves logouts and logins before a queue of reads', () => {
  let t: TestApp;
  let pool: EmbeddedPool;
  let reader: string;
  let account: Account;
  let companyId: number;

  beforeAll(async () => {
    t = await startTestApp();
    pool = (t.app.get(DataSource).driver as unknown as { master: EmbeddedPool }).master;
    const [company] = await createCompanies(t, 'Lanes');
    companyId = company.id;
    account = await createAccount(t, [company.id], ['products:read']);
    reader = (await login(t, account, company.id)).jwt;
    await authed(t, reader).get('/v1/products').expect(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Holds the session, starts the requests one after the other, each queued before the next starts, then frees it. */
  async function finishingOrder(requests: Array<[string, () => Promise<unknown>]>): Promise<string[]> {
    const lease = await new Promise<() => void>((resolve, reject) =>
      pool.connect((error, _connection, release) => (error ? reject(error) : resolve(release))),
    );
    const order: string[] = [];
    const running: Array<Promise<unknown>> = [];
    for (const [name, send] of requests) {
      const queued = pool.waitingCount;
      running.push(send().then(() => order.push(name)));
      // Each request reaches the database before the next is sent: its place in the queue is known.
      while (pool.waitingCount === queued) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    lease();
    await Promise.all(running);
    return order;
  }

  const reads = (): Array<[string, () => Promise<unknown>]> =>
    Array.from({ length: READS }, (_, index) => [
      `read ${index}`,
      async () => authed(t, reader).get('/v1/products').expect(200),
    ]);

  it('a logout queued after 20 reads finishes first; a read queued there finishes last (one queue per lane)', async () => {
    const session = (await login(t, account, companyId)).jwt;
    await authed(t, session).get('/v1/users/me').expect(200);

    const withLogout = await finishingOrder([
      ...reads(),
      ['logout', async () => authed(t, session).post('/v1/users/logout').expect(204)],
    ]);
    expect(withLogout[0]).toBe('logout');

    const withRead = await finishingOrder([
      ...reads(),
      ['last read', async () => authed(t, reader).get('/v1/products').expect(200)],
    ]);
    expect(withRead.at(-1)).toBe('last read');
  });

  it('a login (a body read first, then argon2, then its statements) queued after 20 reads finishes before them', async () => {
    const order = await finishingOrder([
      ...reads(),
      [
        'login',
        async () =>
          t
            .http()
            .post('/v1/users/authenticatefinish')
            .send({ email: account.email, password: account.password, company_id: companyId })
            .expect(200),
      ],
    ]);
    expect(order.indexOf('login')).toBeLessThan(READS / 2);
  });
});
