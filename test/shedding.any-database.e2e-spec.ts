import { connect, type AddressInfo, type Socket } from 'node:net';
import { LAG_SOURCE, LoadShedder } from '../src/operations/shedding/load-shedder';
import { authed, createAccount, createCompanies, login, type Account, type LoginBody } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md, "Shedding load": a saturated instance answers the least important requests 503 first, before
 * doing any work for them, in the order writes, reads, logins, logout; health is always served. The instance is
 * saturated for real: SHED_MAX_IN_FLIGHT is 10, and requests whose bodies never finish arriving stay in flight
 * (they passed the shedder and wait for their body), so each held request raises the count by one. The event
 * loop's delay comes from a source the test sets (its sampling is unit-tested in saturation.spec.ts).
 */
describe('shedding load by priority', () => {
  let t: TestApp;
  let port: number;
  let shedder: LoadShedder;
  let account: Account;
  let companyId: number;
  let reader: LoginBody;
  /** A session opened before the overload, ended during it. */
  let ending: LoginBody;
  const held: Socket[] = [];
  const loopDelay = { ms: 0, lagMs: () => loopDelay.ms };

  beforeAll(async () => {
    t = await startTestApp({
      env: { SHED_MAX_IN_FLIGHT: '10', SHED_MAX_EVENT_LOOP_DELAY_MS: '100' },
      configure: (builder) => builder.overrideProvider(LAG_SOURCE).useValue(loopDelay),
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    shedder = t.app.get(LoadShedder);
    const [company] = await createCompanies(t, 'Shed Co');
    companyId = company.id;
    account = await createAccount(t, [companyId]);
    reader = await login(t, account, companyId);
    ending = await login(t, account, companyId);
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await t.close();
  });

  /** Resolves once the instance counts `count` requests in flight (polled: the server sees a socket a turn later). */
  async function inFlight(count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (shedder.detector.requestsInFlight !== count) {
      if (Date.now() > deadline) throw new Error(`in flight: ${shedder.detector.requestsInFlight}, expected ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** A request whose head arrives and whose body never does: it stays in flight until its socket closes. */
  async function hold(method: string, path: string): Promise<void> {
    const before = shedder.detector.requestsInFlight;
    const socket = connect({ port, host: '127.0.0.1' });
    socket.on('error', () => undefined);
    socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"`,
    );
    held.push(socket);
    await inFlight(before + 1);
  }

  const write = () => authed(t, reader.jwt).post('/v1/products', { name: 'Shed', sku: `S-${Math.random()}`, price: 1 });
  const read = () => authed(t, reader.jwt).get('/v1/products');
  const signIn = () =>
    t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: companyId });
  const health = () => t.http().get('/health/live');

  function expectShed(res: { status: number; body: unknown; headers: Record<string, string> }) {
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: ['error_service_unavailable'], message: expect.any(String) });
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  }

  async function shedCounts(): Promise<Record<string, number>> {
    const text = (await t.http().get('/metrics').expect(200)).text;
    const counts: Record<string, number> = {};
    for (const match of text.matchAll(/^http_requests_shed_total\{priority="(\w+)"\} (\d+)$/gm))
      counts[match[1]] = Number(match[2]);
    return counts;
  }

  it('serves everything below the bound, and counts nothing shed', async () => {
    expect((await write()).status).toBe(201);
    expect((await read()).status).toBe(200);
    await inFlight(0);
    expect(await shedCounts()).toEqual({ health: 0, revocation: 0, sign_in: 0, read: 0, write: 0 });
  });

  it('at 7 of 10 in flight: writes are shed (503, Retry-After, nothing written); reads, logins, health served', async () => {
    for (let i = 0; i < 7; i++) await hold('POST', '/v1/products');
    const before = (await read()).body as { total?: number; products?: unknown[] };
    const shed = await write();
    expectShed(shed);
    // The /v1 answer still carries the request's bucket, as every /v1 answer does.
    expect(shed.headers['x-rate-limit-limit']).toBeDefined();
    expect((await read()).body).toEqual(before);
    expect((await signIn()).status).toBe(200);
    expect((await health()).status).toBe(200);
  });

  it('at 8: reads are shed too; logins and health served', async () => {
    await hold('POST', '/v1/users/authenticatefinish');
    expectShed(await write());
    expectShed(await read());
    expect((await signIn()).status).toBe(200);
    expect((await health()).status).toBe(200);
  });

  it('at 9: logins are shed too; logout and health served', async () => {
    await hold('POST', '/v1/users/authenticatefinish');
    expectShed(await write());
    expectShed(await read());
    expectShed(await signIn());
    expect((await authed(t, ending.jwt).post('/v1/users/logout')).status).toBe(204);
    expect((await health()).status).toBe(200);
  });

  it('at 10: logout is shed too (and ends nothing); health and metrics still served', async () => {
    await hold('POST', '/v1/users/logout');
    expectShed(await write());
    expectShed(await read());
    expectShed(await signIn());
    expectShed(await authed(t, reader.jwt).post('/v1/users/logout'));
    expect((await health()).status).toBe(200);
    expect((await t.http().get('/health')).status).toBe(200);
  });

  it('counts what it shed, per priority', async () => {
    expect(await shedCounts()).toEqual({ health: 0, revocation: 1, sign_in: 2, read: 3, write: 4 });
  });

  it('when the held requests end, their places come back and everything is served again', async () => {
    for (const socket of held.splice(0)) socket.destroy();
    await inFlight(0);
    expect((await write()).status).toBe(201);
    // The logout served under load ended its session; the shed one ended nothing: that session still works.
    const ended = await authed(t, ending.jwt).get('/v1/users/me');
    expect([ended.status, ended.body.error]).toEqual([400, ['error_jwt_blacklisted']]);
    expect((await authed(t, reader.jwt).get('/v1/users/me')).status).toBe(200);
    expect((await authed(t, reader.jwt).post('/v1/users/logout')).status).toBe(204);
    await inFlight(0);
  });

  it('a late event loop sheds the same way, by the share of its bound the delay reaches', async () => {
    await inFlight(0);
    loopDelay.ms = 85;
    try {
      // The reader's token was logged out above: shed before its credential is even looked at.
      expectShed(await write());
      expectShed(await read());
      const fresh = await signIn();
      expect(fresh.status).toBe(200);
      reader = fresh.body as LoginBody;
      loopDelay.ms = 95;
      expectShed(await signIn());
      expect((await health()).status).toBe(200);
    } finally {
      loopDelay.ms = 0;
    }
    expect((await read()).status).toBe(200);
    expect(await shedCounts()).toEqual({ health: 0, revocation: 1, sign_in: 3, read: 4, write: 5 });
  });
});
