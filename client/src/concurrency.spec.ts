import { RateLimitScheduler } from './scheduler';
import { FakeClock, settle } from './testing/fake-clock';
import { loggedInClient } from './testing/logged-in-client';

const setUp = loggedInClient;

type Client = Awaited<ReturnType<typeof setUp>>['client'];
const get = (client: Client, path: string, signal?: AbortSignal) =>
  client.api.GET(path as '/v1/products', { signal }) as Promise<{ response: Response }>;
/** `count` GETs spread over `groups` API groups (`/v1/g0`, `/v1/g1`, …), all at once. */
const spread = (client: Client, count: number, groups: number) =>
  Promise.all(Array.from({ length: count }, (_, i) => get(client, `/v1/g${i % groups}`)));
const statuses = (answers: Array<{ response: Response }>) => answers.map((answer) => answer.response.status);

describe('the client holds each credential to the service’s concurrency cap', () => {
  it('keeps at most 20 of one credential in flight, whatever their group, before the service has said its cap', async () => {
    const { clock, server, client } = await setUp({ concurrencyLimit: 20, latencyMs: 10_000 });
    const { value } = await clock.runUntil(spread(client, 100, 5), 600_000, 100);
    expect(statuses(value)).toEqual(Array(100).fill(200));
    expect(server.concurrencyRefusals).toBe(0);
    expect(server.maxLeases).toBe(20); // the whole cap used, never more
  });

  it('takes a lower cap from the first refusal by it, then waits for its own requests to end: refused once only', async () => {
    const { clock, server, client } = await setUp({ concurrencyLimit: 5, latencyMs: 10_000 });
    const start = clock.now();
    const { value } = await clock.runUntil(spread(client, 30, 3), 600_000, 100);
    expect(statuses(value)).toEqual(Array(30).fill(200));
    const refused = server.received.filter((request) => request.status === 429);
    // One wave (at most 20, the assumed cap, met the real cap of 5: refusals come back at once, and the first one
    // stops the rest of the wave); the refused went again as the 5 admitted ended (10 s later), not after
    // Retry-After (1 s), when they would have been refused again.
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThanOrEqual(15);
    expect(new Set(refused.map((request) => request.at)).size).toBe(1);
    expect(server.concurrencyRefusals).toBe(refused.length);
    expect(server.maxLeases).toBe(5);
    expect(client.stats.rateLimited).toBe(refused.length);
    console.log(`cap 5, assumed 20: ${refused.length} refused, all at +${refused[0].at - start} ms, then none`);
  });

  it('gives a refused request’s bucket slot back: the retry goes as soon as a request ends, not a bucket interval later', async () => {
    // A bucket of 10 per 10 s: a slot charged for each of the 4 refused requests would hold their retries 4 s.
    const { clock, server, client } = await setUp({
      concurrencyLimit: 5,
      capacity: 10,
      windowMs: 10_000,
      latencyMs: 100,
    });
    const { value, tookMs } = await clock.runUntil(spread(client, 10, 1));
    expect(statuses(value)).toEqual(Array(10).fill(200));
    expect(server.concurrencyRefusals).toBe(4);
    expect(server.count(429)).toBe(4); // no bucket refused anything
    expect(tookMs).toBeLessThan(500);
  });

  it('waits out Retry-After while another process holds the leases, and holds the credential’s other requests too', async () => {
    const { clock, server, client } = await setUp({ concurrencyLimit: 3 });
    server.leasesElsewhere = 3;
    const start = clock.now();
    const first = get(client, '/v1/products');
    await clock.advance(100);
    const second = get(client, '/v1/orders');
    await clock.advance(1400);
    server.leasesElsewhere = 0;
    const { value } = await clock.runUntil(Promise.all([first, second]));

    expect(statuses(value)).toEqual([200, 200]);
    const seen = server.received.map((request) => `${request.path} ${request.status} +${request.at - start}`);
    // Refused at once; the gate paused for Retry-After (1 s): the orders request waited without being sent.
    expect(seen.slice(0, 3)).toEqual(['/v1/products 429 +0', '/v1/products 429 +1000', '/v1/orders 429 +1000']);
    expect(seen.slice(3).sort()).toEqual(['/v1/orders 200 +2005', '/v1/products 200 +2005']);
  });

  it('gives the caller the cap’s 429 once the retry budget is spent, and a wait the time budget cannot cover is not started', async () => {
    const noRetry = await setUp({ concurrencyLimit: 1 }, { retry: { maxRetries: 0 } });
    noRetry.server.leasesElsewhere = 1;
    const { value } = await noRetry.clock.runUntil(get(noRetry.client, '/v1/products'));
    expect(value.response.status).toBe(429);
    expect(value.response.headers.get('retry-after')).toBe('1');
    expect(value.response.headers.get('ratelimit')).toMatch(/, "concurrency";r=0$/);
    expect(noRetry.server.received).toHaveLength(1);

    const short = await setUp({ concurrencyLimit: 1 }, { retry: { maxWaitMs: 500 } });
    short.server.leasesElsewhere = 1;
    const answer = await short.clock.runUntil(get(short.client, '/v1/products'), 60_000, 1);
    expect(answer.value.response.status).toBe(429);
    expect(answer.tookMs).toBeLessThan(100);
  });

  it('cancels a request held back by the cap with its AbortSignal; it is never sent', async () => {
    const { clock, server, client } = await setUp({ latencyMs: 10_000 }, { concurrency: 1 });
    const running = get(client, '/v1/products');
    const controller = new AbortController();
    const held = get(client, '/v1/orders', controller.signal);
    await clock.advance(1000);
    controller.abort();
    await expect(held).rejects.toMatchObject({ name: 'AbortError' });
    await clock.runUntil(running, 60_000, 100);
    await clock.advance(20_000);
    expect(server.received.map((request) => request.path)).toEqual(['/v1/products']);
  });

  it('takes the assumed cap from the `concurrency` option, and counts each credential on its own', async () => {
    const latencyMs = (path: string) => (path.startsWith('/v1/users/') ? 5 : 10_000);
    const { clock, server, client } = await setUp({ latencyMs }, { concurrency: 2 });
    const all = spread(client, 6, 3);
    await clock.advance(1000);
    // The session's two slots are taken; a request without a credential (the client's address) is not held.
    const { tookMs } = await clock.runUntil(
      client.api.POST('/v1/users/authenticateinit', { body: { email: 'a@example.test', password: 'pw' } }),
    );
    expect(tookMs).toBeLessThan(100);
    await clock.runUntil(all, 600_000, 100);
    expect(server.maxLeases).toBe(2);
  });
});

describe('the scheduler’s gate of one credential', () => {
  it('learns the cap a refusal announces and pauses: each request that ends lets one go, the rest wait out Retry-After', async () => {
    const clock = new FakeClock();
    const scheduler = new RateLimitScheduler(clock, 3);
    const turn = (group: string, credential = 'k') => {
      const state = { granted: false };
      const permit = scheduler.acquire(`GET ${group}`, undefined, false, credential).then((granted) => {
        state.granted = true;
        return granted;
      });
      return Object.assign(permit, { state });
    };
    const held = [turn('a'), turn('b'), turn('c'), turn('d')];
    await settle();
    expect(held.map((permit) => permit.state.granted)).toEqual([true, true, true, false]);
    expect(scheduler.describeCredential('k')).toEqual({ limit: 3, learned: false, inFlight: 3 });
    // Another credential has a gate of its own.
    const other = turn('z', 'other');
    await settle();
    expect(other.state.granted).toBe(true);

    (await held[0]).release(undefined, { refused: true, cap: 5, retryAfterMs: 1000 });
    expect(scheduler.describeCredential('k')).toEqual({ limit: 5, learned: true, inFlight: 2 });
    await clock.advance(500);
    expect(held[3].state.granted).toBe(false); // below the cap, but paused
    (await held[1]).release(); // one of its own ended: one lease freed on the server, one request goes
    await settle();
    expect(held[3].state.granted).toBe(true);
    const next = turn('e');
    await clock.advance(400); // 900 ms into the pause
    expect(next.state.granted).toBe(false);
    await clock.advance(200);
    expect(next.state.granted).toBe(true);
    expect(scheduler.describeCredential('k')).toEqual({ limit: 5, learned: true, inFlight: 3 });
  });
});
