import { createStaffAuthClient, type StaffAuthClientOptions } from './client';
import type { FakeServiceOptions } from './testing/fake-service';
import { loggedInClient } from './testing/logged-in-client';

/** A logged-in client of a fake service; `refuseNext` applies from the first request after the login. */
async function setUp(
  service: FakeServiceOptions & { refuseNext?: { count: number; retryAfter: number } } = {},
  client: Partial<StaffAuthClientOptions> = {},
) {
  const running = await loggedInClient(service, client);
  if (service.refuseNext) running.server.refuseNext = { ...service.refuseNext };
  return running;
}

const listProducts = (client: { api: ReturnType<typeof createStaffAuthClient>['api'] }, signal?: AbortSignal) =>
  client.api.GET('/v1/products', { signal });

describe('the client paces requests to the server’s buckets', () => {
  it('sends 300 GETs at concurrency 100 as the bucket admits them: 30 at once, then 10 per second', async () => {
    const { clock, server, client } = await setUp();
    const all = Promise.all(Array.from({ length: 300 }, () => listProducts(client)));
    const { value, tookMs } = await clock.runUntil(all);

    expect(value.map((answer) => answer.response.status)).toEqual(Array(300).fill(200));
    expect(server.count(429)).toBeLessThanOrEqual(1);
    expect(server.maxInFlight).toBeLessThanOrEqual(30);
    // 30 at once, 270 more at 10 per second: 27 s, plus one round trip to learn the capacity.
    expect(tookMs).toBeGreaterThanOrEqual(27_000);
    expect(tookMs).toBeLessThanOrEqual(27_000 * 1.05);
  });

  it('keeps no more in flight than the announced capacity, however slow the answers', async () => {
    const { clock, server, client } = await setUp({ capacity: 5, latencyMs: 10_000 });
    const all = Promise.all(Array.from({ length: 20 }, () => listProducts(client)));
    const { value } = await clock.runUntil(all, 600_000, 100);
    expect(value.every((answer) => answer.response.status === 200)).toBe(true);
    expect(server.maxInFlight).toBe(5);
  });

  it('takes the capacity from RateLimit-Policy when the server sends it', async () => {
    const { clock, server, client } = await setUp({ capacity: 30, policyCapacity: 3, latencyMs: 10_000 });
    const all = Promise.all(Array.from({ length: 9 }, () => listProducts(client)));
    await clock.runUntil(all, 600_000, 100);
    expect(server.maxInFlight).toBe(3);
  });

  it('waits out Retry-After, never less, before sending a refused request again', async () => {
    const { clock, server, client } = await setUp({ refuseNext: { count: 3, retryAfter: 2 } });
    const { value } = await clock.runUntil(listProducts(client));

    expect(value.response.status).toBe(200);
    const times = server.received.map((request) => request.at);
    expect(server.received.map((request) => request.status)).toEqual([429, 429, 429, 200]);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(2000);
    expect(client.stats.rateLimited).toBe(3);
  });

  it('retries a refused POST too: a 429 was not processed', async () => {
    const { clock, server, client } = await setUp({ refuseNext: { count: 1, retryAfter: 1 } });
    const post = client.api.POST('/v1/products', { body: { name: 'Tea', sku: 'T-1', price: 100 } });
    const { value } = await clock.runUntil(post);
    expect(value.response.status).toBe(200);
    expect(server.received.map((request) => `${request.method} ${request.status}`)).toEqual(['POST 429', 'POST 200']);
  });

  it('gives the caller the 429 once the retry budget is spent', async () => {
    const { clock, server, client } = await setUp(
      { refuseNext: { count: 10, retryAfter: 1 } },
      { retry: { maxRetries: 2 } },
    );
    const { value } = await clock.runUntil(listProducts(client));
    expect(value.response.status).toBe(429);
    expect(value.error).toEqual(['error_rate_limit_exceed']);
    expect(server.received).toHaveLength(3);
  });

  it('does not start a wait the time budget cannot cover: the 429 comes back at once', async () => {
    const { clock, client } = await setUp({ refuseNext: { count: 10, retryAfter: 5 } }, { retry: { maxWaitMs: 4000 } });
    const { value, tookMs } = await clock.runUntil(listProducts(client), 60_000, 1);
    expect(value.response.status).toBe(429);
    expect(tookMs).toBeLessThan(100);
  });

  it('cancels a request waiting for its turn with its AbortSignal; it is never sent', async () => {
    const { clock, server, client } = await setUp({ capacity: 2, latencyMs: 10_000 });
    const first = [listProducts(client), listProducts(client)];
    await clock.advance(20_000); // the capacity is known, two are in flight
    const more = [listProducts(client), listProducts(client)];
    const controller = new AbortController();
    const waiting = listProducts(client, controller.signal);
    await clock.advance(100);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await clock.runUntil(Promise.all([...first, ...more]), 600_000, 100);
    expect(server.received).toHaveLength(4);
  });

  it('cancels a request waiting out Retry-After', async () => {
    const { clock, server, client } = await setUp({ refuseNext: { count: 1, retryAfter: 30 } });
    const controller = new AbortController();
    const request = listProducts(client, controller.signal);
    await clock.advance(1000);
    expect(server.received.map((received) => received.status)).toEqual([429]);
    controller.abort();
    await expect(request).rejects.toMatchObject({ name: 'AbortError' });
    await clock.advance(60_000);
    expect(server.received).toHaveLength(1);
  });

  it('counts each method × group on its own: a busy products bucket does not hold orders back', async () => {
    const { clock, server, client } = await setUp({ capacity: 3 });
    const products = Promise.all(Array.from({ length: 12 }, () => listProducts(client)));
    await clock.advance(200);
    const { tookMs } = await clock.runUntil(client.api.GET('/v1/orders'));
    expect(tookMs).toBeLessThan(100);
    await clock.runUntil(products);
    expect(server.count(429)).toBe(0);
  });
});

describe('the client respects a quota the server reports used up', () => {
  const HOUR = 3_600_000;
  const quota = { quota: { limit: 3, windowMs: HOUR } };

  it('sends nothing more, on any method × group, until the window ends; then goes on without a 429', async () => {
    const { clock, server, client } = await setUp(quota);
    const started = clock.now();
    for (let i = 0; i < 3; i++) expect((await clock.runUntil(listProducts(client))).value.response.status).toBe(200);
    const { value } = await clock.runUntil(client.api.GET('/v1/orders' as never), 2 * HOUR, 60_000);
    expect((value as { response: Response }).response.status).toBe(200);
    expect(server.count(429)).toBe(0);
    const orders = server.received.find((request) => request.path === '/v1/orders')!;
    // The fake clock starts on the hour: the quota's window ends an hour after it.
    expect(orders.at).toBeGreaterThanOrEqual(started + HOUR);
  });

  it('returns the 429 at once when the retry budget cannot cover the wait', async () => {
    const { clock, server, client } = await setUp(quota, { retry: { maxWaitMs: 1000 } });
    for (let i = 0; i < 3; i++) await clock.runUntil(listProducts(client));
    const { value, tookMs } = await clock.runUntil(listProducts(client));
    expect(value.response.status).toBe(429);
    expect(value.response.headers.get('ratelimit')).toMatch(/^"hour";r=0;t=\d+$/);
    expect(server.count(429)).toBe(1);
    expect(tookMs).toBeLessThan(1000);
  });
});
