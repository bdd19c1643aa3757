import { DataSource } from 'typeorm';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

const READS = 20;

/** What both pools (the embedded one, node-postgres' LanePool) offer: checkouts, and how many wait. */
interface Pool {
  connect(callback: (error: Error | undefined, connection: unknown, release: () => void) => void): void;
  readonly waitingCount: number;
}

/**
 * docs/contract.md "Shedding load": under an overload of reads, logouts and logins still get through. When every
 * connection is busy, the requests of the routes that must get through (health, logout and revocations, logins)
 * wait in a first lane (src/platform/database/query-lane.ts): a queue of reads does not hold them. Every
 * connection of the pool is held here so that each request below is queued before any is served; then one is
 * given back, and the requests are served one at a time, in the order of the queue.
 */
describe('the database serves logouts and logins before a queue of reads', () => {
  let t: TestApp;
  let pool: Pool;
  let held: Array<() => void> = [];
  let reader: string;
  let account: Account;
  let companyId: number;

  beforeAll(async () => {
    t = await startTestApp();
    pool = (t.app.get(DataSource).driver as unknown as { master: Pool }).master;
    const [company] = await createCompanies(t, 'Lanes');
    companyId = company.id;
    account = await createAccount(t, [company.id], ['products:read']);
    reader = (await login(t, account, company.id)).jwt;
    await authed(t, reader).get('/v1/products').expect(200);
  });
  afterAll(async () => {
    for (const release of held) release();
    await t?.close();
  });

  const checkout = () =>
    new Promise<() => void>((resolve, reject) =>
      pool.connect((error, _connection, release) => (error ? reject(error) : resolve(release))),
    );

  /** Holds every connection, starts the requests one after the other, each queued before the next, frees one. */
  async function finishingOrder(requests: Array<[string, () => Promise<unknown>]>): Promise<string[]> {
    const size = t.config.usesEmbeddedDatabase ? 1 : t.config.databasePoolSize;
    held = [];
    for (let index = 0; index < size; index++) held.push(await checkout());
    const order: string[] = [];
    const running: Array<Promise<unknown>> = [];
    for (const [name, send] of requests) {
      const queued = pool.waitingCount;
      running.push(send().then(() => order.push(name)));
      // Each request reaches the database before the next is sent: its place in the queue is known.
      while (pool.waitingCount === queued) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    held.shift()!();
    await Promise.all(running);
    for (const release of held.splice(0)) release();
    return order;
  }

  const reads = (): Array<[string, () => Promise<unknown>]> =>
    Array.from({ length: READS }, (_, index) => [
      `read ${index}`,
      async () => authed(t, reader).get('/v1/products').expect(200),
    ]);

  it('a logout queued after 20 reads finishes before half of them; a read queued there finishes last', async () => {
    const session = (await login(t, account, companyId)).jwt;
    await authed(t, session).get('/v1/users/me').expect(200);

    const withLogout = await finishingOrder([
      ...reads(),
      ['logout', async () => authed(t, session).post('/v1/users/logout').expect(204)],
    ]);
    // Each of its statements goes ahead of the queue; between two of them, node-postgres may hand the connection
    // to the read at the head (it does so as soon as one is returned), so a few reads can finish first.
    expect(withLogout.indexOf('logout')).toBeLessThan(READS / 2);

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
