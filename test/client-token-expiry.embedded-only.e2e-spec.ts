import { performance } from 'node:perf_hooks';
import { createStaffAuthClient, systemClock } from '../client/src';
import { Clock } from '../src/platform/common/clock/clock';
import { createAccount, createCompanies } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(90_000);

/** Real time plus an offset a test moves: 14 days pass in an instant, for the service and the client alike. */
class JumpingClock extends Clock {
  offsetMs = 0;
  override now(): Date {
    return new Date(this.nowMs());
  }
  override nowMs(): number {
    return Date.now() + this.offsetMs;
  }
}

const IDEAL_MS = (300 - 30) * 100;

/**
 * The 300-GET run of client-package.embedded-only.e2e-spec.ts with the token expiring in the middle of it. The
 * service runs in this process with the real limits and an injected clock (how the suite tests expiry; a built
 * process cannot have its clock moved), listening on a real port; the client shares the clock.
 */
describe('the client package when its token expires during a run', () => {
  let t: TestApp;
  let clock: JumpingClock;

  beforeAll(async () => {
    clock = new JumpingClock();
    t = await startTestApp({ clock, env: { RATE_LIMIT_SCALE: '1' } });
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it('refreshes once before expires_at; all 300 GETs at concurrency 100 succeed', async () => {
    const [company] = await createCompanies(t, 'Expiry Co');
    const account = await createAccount(t, [company.id], ['*']);
    const { port } = t.app.getHttpServer().address() as { port: number };
    const client = createStaffAuthClient({
      baseUrl: `http://127.0.0.1:${port}`,
      clock: { now: () => clock.nowMs(), sleep: systemClock.sleep },
    });
    const first = await client.login({ email: account.email, password: account.password });
    const expiresAt = Date.parse(first.expires_at);

    let done = 0;
    const statuses: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (done < 300) {
          done++;
          const { response } = await client.api.GET('/v1/products', { params: { query: { per_page: 1 } } });
          statuses.push(response.status);
          // A third of the way in, time jumps to 30 s before expiry (inside the refresh margin); at two
          // thirds, past it: the first token is dead by then, and nothing may have been sent with it.
          if (statuses.length === 100) clock.offsetMs = expiresAt - 30_000 - Date.now();
          if (statuses.length === 200) clock.offsetMs = expiresAt + 5_000 - Date.now();
        }
      }),
    );
    // Under 27 s here: each jump drains the buckets, and the new token counts on buckets of its own.
    const ms = Math.round(performance.now() - started);
    console.log(
      `client, token expiring mid-run: 300 GETs in ${ms} ms (ratio ${(ms / IDEAL_MS).toFixed(3)} of ${IDEAL_MS} ms), ` +
        `${client.stats.rateLimited} refused by the server, ${client.stats.refreshes} refresh`,
    );

    expect(statuses).toEqual(Array(300).fill(200));
    expect(client.stats.refreshes).toBe(1);
    expect(client.session!.jwt).not.toBe(first.jwt);
    expect(client.stats.rateLimited).toBeLessThanOrEqual(5);
    expect(ms).toBeLessThanOrEqual(IDEAL_MS * 1.2);
    // The run ended past the first token's expiry; the refresh had replaced it (and blacklisted it) before.
    expect(clock.nowMs()).toBeGreaterThan(expiresAt);
    const old = await t.http().get('/v1/users/me').set('authorization', first.jwt);
    expect(old.body.error).toEqual(['error_jwt_blacklisted']);
    await t.http().get('/v1/users/me').set('authorization', client.session!.jwt).expect(200);
  });
});
