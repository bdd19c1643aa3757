import { createStaffAuthClient, LoginError } from './client';
import { type LoginResult, TokenSession } from './token-session';
import { FakeClock } from './testing/fake-clock';
import { FakeService, type FakeServiceOptions } from './testing/fake-service';

function setUp(service: FakeServiceOptions = {}, refreshMarginMs = 60_000) {
  const clock = new FakeClock();
  const server = new FakeService(clock, service);
  const client = createStaffAuthClient({ baseUrl: 'http://service.test', fetch: server.fetch, clock, refreshMarginMs });
  return { clock, server, client };
}

const HOUR = 3_600_000;

describe('the client’s login session', () => {
  it('logs in with both steps and sends the raw token, no "Bearer"', async () => {
    const { clock, server, client } = setUp();
    const otp = jest.fn(() => '000000');
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw', otp }));
    await clock.runUntil(client.api.GET('/v1/products'));

    expect(server.received.map((r) => `${r.method} ${r.path} ${r.authorization}`)).toEqual([
      'POST /v1/users/authenticateinit null',
      'POST /v1/users/authenticatefinish null',
      'GET /v1/products jwt-1',
    ]);
    expect(otp).not.toHaveBeenCalled(); // TOTP is off for this account
    expect(client.session?.jwt).toBe('jwt-1');
  });

  it('asks for the TOTP code when authenticateinit says so, and reports a refused login', async () => {
    const { clock, server, client } = setUp({ otpRequired: true });
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw', otp: async () => '123456' }));
    expect(server.otpSeen).toEqual(['123456']);

    const refused = client.login({ email: 'a@example.test', password: 'pw', otp: () => '999999' });
    const failure = clock.runUntil(refused).catch((error: unknown) => error);
    expect(await failure).toBeInstanceOf(LoginError);
    expect(await failure).toMatchObject({ step: 'authenticatefinish', status: 401 });
  });

  it('refreshes before expires_at, once, and every later request carries the new token', async () => {
    const { clock, server, client } = setUp({ tokenLifetimeMs: 2 * HOUR });
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw' }));
    await clock.runUntil(client.api.GET('/v1/products'));
    await clock.advance(2 * HOUR - 59_000); // inside the 60 s margin
    const burst = Promise.all(Array.from({ length: 10 }, () => client.api.GET('/v1/products')));
    const { value } = await clock.runUntil(burst);

    expect(value.map((answer) => answer.response.status)).toEqual(Array(10).fill(200));
    expect(client.stats.refreshes).toBe(1);
    const after = server.received.slice(3);
    expect(after[0].path).toBe('/v1/users/refreshtoken');
    expect(after.slice(1).map((r) => r.authorization)).toEqual(Array(10).fill('jwt-2'));
  });

  it('waits for requests still carrying the old token before refreshing, so none is blacklisted', async () => {
    const latencyMs = (path: string) => (path === '/v1/products' ? 5000 : 5);
    const { clock, server, client } = setUp({ tokenLifetimeMs: 2 * HOUR, latencyMs });
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw' }));
    await clock.advance(2 * HOUR - 62_000); // not yet inside the 60 s margin
    const slow = client.api.GET('/v1/products'); // five seconds on the wire with jwt-1
    await clock.advance(3000); // now inside the margin
    const late = client.api.GET('/v1/orders'); // due for a refresh, which must wait for the slow one
    const { value } = await clock.runUntil(Promise.all([slow, late]));

    expect(value.map((answer) => answer.response.status)).toEqual([200, 200]);
    expect(server.count(400)).toBe(0);
    expect(server.received.slice(2).map((r) => `${r.path} ${r.authorization}`)).toEqual([
      '/v1/products jwt-1',
      '/v1/users/refreshtoken null',
      '/v1/orders jwt-2',
    ]);
  });

  it('does not refresh again for a request refused with a token a refresh has already replaced', async () => {
    const clock = new FakeClock();
    const result = { jwt: 'jwt-1', refresh_token: 'r', expires_at: '2026-12-01T00:00:00Z' } as LoginResult;
    let issued = 1;
    const renew = jest.fn(async (): Promise<LoginResult> => ({ ...result, jwt: `jwt-${++issued}` }));
    const session = new TokenSession(clock, 60_000, renew);
    session.set(result);
    expect(await session.refresh('jwt-1')).toBe(true);
    expect(await session.refresh('jwt-1')).toBe(true); // an answer that arrived late: jwt-2 is already there
    expect(renew).toHaveBeenCalledTimes(1);
    expect(session.tokenNow()).toBe('jwt-2');
  });

  it('refreshes once on error_jwt_expired and sends the request again; a second one goes to the caller', async () => {
    const { clock, server, client } = setUp();
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw' }));
    server.expireEarly.add('jwt-1'); // the server's clock is ahead of the client's
    const { value } = await clock.runUntil(client.api.GET('/v1/products'));
    expect(value.response.status).toBe(200);
    expect(client.stats.refreshes).toBe(1);
    expect(server.received.slice(2).map((r) => `${r.path} ${r.status}`)).toEqual([
      '/v1/products 400',
      '/v1/users/refreshtoken 200',
      '/v1/products 200',
    ]);

    server.expireEarly.add('jwt-2');
    server.expireEarly.add('jwt-3');
    const again = await clock.runUntil(client.api.GET('/v1/products'));
    expect(again.value.response.status).toBe(400);
    expect(again.value.error).toEqual({ error: ['error_jwt_expired'] });
    expect(client.stats.refreshes).toBe(2); // one per request, not a loop
  });

  it('gives the caller error_jwt_expired when the refresh itself is refused, and stops refreshing', async () => {
    const { clock, server, client } = setUp({ tokenLifetimeMs: 2 * HOUR }, 1000);
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw' }));
    await clock.advance(2 * HOUR + 1000); // past expiry: the server refuses the refresh too
    const { value } = await clock.runUntil(client.api.GET('/v1/products'));
    expect(value.error).toEqual({ error: ['error_jwt_expired'] });
    await clock.runUntil(client.api.GET('/v1/products'));
    expect(server.received.filter((r) => r.path === '/v1/users/refreshtoken')).toHaveLength(1);
  });

  it('logs out with its token and forgets the session', async () => {
    const { clock, server, client } = setUp();
    await clock.runUntil(client.login({ email: 'a@example.test', password: 'pw' }));
    await clock.runUntil(client.logout());
    expect(server.received.at(-1)).toMatchObject({ path: '/v1/users/logout', authorization: 'jwt-1', status: 204 });
    expect(client.session).toBeUndefined();
    await clock.runUntil(client.api.GET('/v1/products'));
    expect(server.received.at(-1)).toMatchObject({ authorization: null, status: 401 });
  });
});
