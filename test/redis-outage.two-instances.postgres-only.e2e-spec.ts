import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import {
  call,
  type FleetAccount,
  createFleetAccount,
  freshIp,
  Load,
  logIn,
  metric,
  type Session,
  sleep,
  startFleet,
} from './support/fleet';
import { killChildren, logRecords, requireBuild, type RunningService } from './support/processes';
import { RedisServer } from './support/redis-server';

/** docs/contract.md, "Operations": revocations reach every instance within 1 second, whatever Redis does. */
const REVOCATION_BUDGET_MS = 1000;
/** The GET bucket of the source's table, for the whole fleet: 30 at once, one more every 100 ms. */
const GET_LIMIT = 30;
const GET_INTERVAL_MS = 100;
/** How long Redis stays away at least (the report: 10 s). */
const OUTAGE_MS = 10_000;

/**
 * Redis killed under load and brought back, with two built service processes sharing PostgreSQL and a Redis of
 * this test's own: Redis is an accelerator, never a single point of failure (docs/contract.md, "Operations").
 */
describe('Redis killed and restarted under load (two instances)', () => {
  let redis: RedisServer;
  let database: ProvisionedDatabase;
  let account: FleetAccount;
  let a: RunningService;
  let b: RunningService;
  let load: Load;
  let outageStarted = 0;
  const figures: Record<string, unknown> = {};

  const me = (url: string, credential: string) => call(url, 'GET', '/v1/users/me', { credential, ip: freshIp() });

  /**
   * One burst of concurrent requests on one counter, spread over both instances, and the most a fleet-wide
   * bucket may admit in the time it took: `capacity + floor(elapsed × rate)`.
   */
  async function burst(count: number): Promise<{ admitted: number; bound: number; limits: string[] }> {
    const ip = freshIp();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => call(i % 2 === 0 ? a.url : b.url, 'GET', '/v1/products', { ip })),
    );
    const bound = GET_LIMIT + Math.floor((performance.now() - started) / GET_INTERVAL_MS);
    // Without a credential the request is refused (401) after the limiter counted it; 429 is the limiter's no.
    expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
    return {
      admitted: answers.filter((answer) => answer.status !== 429).length,
      bound,
      limits: [...new Set(answers.map((answer) => answer.headers.get('x-rate-limit-limit')!))],
    };
  }

  /** A burst admitted a full bucket and no more than the bound, with the Limit header `limit`. */
  function expectFleetWide(round: { admitted: number; bound: number; limits: string[] }, limit: number) {
    expect(round.limits).toEqual([String(limit)]);
    expect(round.admitted).toBeGreaterThanOrEqual(GET_LIMIT);
    expect(round.admitted).toBeLessThanOrEqual(round.bound);
  }

  /** Logs in on `from`, has `to` cache the token, logs out on `from`: how long the logout took, and until `to` refused. */
  async function logoutSeenBy(from: string, to: string): Promise<{ logoutMs: number; refusedAfterMs: number }> {
    const session = (await logIn(from, account)).body as Session;
    expect((await me(to, session.jwt)).status).toBe(200); // `to` has it cached now
    const logout = await call(from, 'POST', '/v1/users/logout', { credential: session.jwt, ip: freshIp() });
    expect(logout.status).toBe(204);
    const answered = performance.now();
    let refused = await me(to, session.jwt);
    while (refused.status === 200 && performance.now() - answered < 2 * REVOCATION_BUDGET_MS) {
      await sleep(20);
      refused = await me(to, session.jwt);
    }
    expect({ status: refused.status, body: refused.body }).toMatchObject({
      status: 400,
      body: { error: ['error_jwt_blacklisted'] },
    });
    return { logoutMs: Math.round(logout.ms), refusedAfterMs: Math.round(performance.now() - answered) };
  }

  beforeAll(async () => {
    requireBuild();
    redis = await RedisServer.onFreePort(['--enable-debug-command', 'yes']);
    await redis.start();
    database = await provisionDatabase('postgres');
    [a, b] = await startFleet(2, { ...database.env, REDIS_URL: redis.url });
    account = await createFleetAccount(database.url!);
    const session = (await logIn(a.url, account)).body as Session;
    load = new Load([a.url, b.url], account, session.jwt).start(4);
  }, 60_000);

  afterAll(async () => {
    await load?.stop();
    console.log(`Redis outage figures: ${JSON.stringify(figures)}`);
    await killChildren();
    await redis?.kill();
    await database?.drop();
  });

  it('shares one counter across both instances while Redis runs', async () => {
    const shared = await burst(80);
    figures.admittedWithRedis = shared;
    expectFleetWide(shared, GET_LIMIT);
  });

  it('a slow Redis reply falls back instead of failing a request, and does not trip the breaker', async () => {
    const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      const stalls: number[] = [];
      for (let round = 0; round < 3; round++) {
        // A stream of logins, 5 ms apart; half-way through, the server answers nothing for 150 ms, so the
        // checks and resets in flight then miss their 75 ms deadline, whichever step each login is at.
        const logins: Array<Promise<{ status: number }>> = [];
        let stall: Promise<unknown> = Promise.resolve();
        for (let i = 0; i < 24; i++) {
          logins.push(logIn(i % 2 === 0 ? a.url : b.url, account));
          if (i === 8) {
            const started = performance.now();
            stall = admin
              .call('DEBUG', 'SLEEP', '0.15')
              .then(() => stalls.push(Math.round(performance.now() - started)));
          }
          await sleep(5);
        }
        await stall;
        expect((await Promise.all(logins)).map((login) => login.status)).toEqual(Array(24).fill(200));
        await sleep(300);
      }
      figures.redisStallsMs = stalls;
    } finally {
      admin.disconnect();
    }
    for (const service of [a, b]) {
      expect(await metric(service.url, 'rate_limit_storage_breaker_open')).toBe(0);
      expect(logRecords(service.child.stdout).filter((record) => record.event === 'rate_limit_breaker_open')).toEqual(
        [],
      );
    }
  });

  it('while Redis hangs (SIGSTOP, 3 s): logins work, a logout on B is refused by A within 1 s', async () => {
    redis.freeze();
    const frozen = performance.now();
    const seen = [];
    try {
      while (performance.now() - frozen < 3000) {
        expect((await logIn(a.url, account)).status).toBe(200);
        seen.push(await logoutSeenBy(b.url, a.url));
      }
    } finally {
      redis.thaw();
    }
    figures.whileHung = {
      logoutMs: seen.map((round) => round.logoutMs),
      refusedAfterMs: seen.map((round) => round.refusedAfterMs),
    };
    expect(Math.max(...seen.map((round) => round.logoutMs))).toBeLessThan(REVOCATION_BUDGET_MS);
    expect(Math.max(...seen.map((round) => round.refusedAfterMs))).toBeLessThan(REVOCATION_BUDGET_MS);
    // Back to shared counters before the next fault.
    const thawed = performance.now();
    for (const service of [a, b]) {
      while ((await metric(service.url, 'rate_limit_storage_breaker_open')) !== 0) {
        if (performance.now() - thawed > 10_000) throw new Error('the breaker did not close within 10 s');
        await sleep(50);
      }
    }
  });

  it('keeps every operation working while Redis is down: logins, refresh, switch, logout, revocation', async () => {
    await redis.kill();
    outageStarted = performance.now();

    for (const url of [a.url, b.url, a.url, b.url]) {
      // A failed login, then a successful one, which clears the failure counter (it answered 500 before).
      const wrong = await call(url, 'POST', '/v1/users/authenticatefinish', {
        ip: freshIp(),
        body: { email: account.email, password: 'not the password', company_id: account.companies[0] },
      });
      expect(wrong.status).toBe(401);
      const login = await logIn(url, account);
      expect(login.status).toBe(200);
      const session = login.body as Session;

      const refreshed = await call(url, 'POST', '/v1/users/refreshtoken', {
        ip: freshIp(),
        body: { refresh_token: session.refresh_token },
      });
      expect(refreshed.status).toBe(200);
      const switched = await call(url, 'POST', '/v1/users/changeworkingcompany', {
        credential: (refreshed.body as Session).jwt,
        ip: freshIp(),
        body: { company_id: account.companies[1] },
      });
      expect(switched.status).toBe(200);
      const current = (switched.body as Session).jwt;
      expect((await me(url, current)).status).toBe(200);
      const revoked = await call(url, 'DELETE', `/v1/users/sessions/${session.session_id}`, {
        credential: current,
        ip: freshIp(),
      });
      expect(revoked.status).toBe(204);
      expect((await me(a.url, current)).body).toMatchObject({ error: ['error_jwt_blacklisted'] });
      expect((await me(b.url, current)).body).toMatchObject({ error: ['error_jwt_blacklisted'] });
    }
  });

  it('a logout on A is refused by B within 1 s while Redis is down; the logout does not hang', async () => {
    const logoutMs: number[] = [];
    const refusedAfterMs: number[] = [];
    for (let round = 0; round < 5; round++) {
      const seen = await logoutSeenBy(a.url, b.url);
      logoutMs.push(seen.logoutMs);
      refusedAfterMs.push(seen.refusedAfterMs);
    }

    // An API key revoked on B is refused by A as well.
    const owner = (await logIn(b.url, account)).body as Session;
    const created = await call(b.url, 'POST', '/v1/apikeys', {
      credential: owner.jwt,
      ip: freshIp(),
      body: { name: 'outage', permissions: ['users:read'] },
    });
    expect(created.status).toBe(201);
    const key = created.body as { id: string; api_key: string };
    expect((await me(a.url, key.api_key)).status).toBe(200);
    expect(
      (await call(b.url, 'DELETE', `/v1/apikeys/${key.id}`, { credential: owner.jwt, ip: freshIp() })).status,
    ).toBe(204);
    const started = performance.now();
    let keyRefused = await me(a.url, key.api_key);
    while (keyRefused.status === 200 && performance.now() - started < 2 * REVOCATION_BUDGET_MS) {
      await sleep(20);
      keyRefused = await me(a.url, key.api_key);
    }
    refusedAfterMs.push(Math.round(performance.now() - started));
    expect(keyRefused.body).toMatchObject({ error: ['error_jwt_blacklisted'] });

    figures.logoutAnsweredMs = logoutMs;
    figures.refusedByOtherInstanceAfterMs = refusedAfterMs;
    expect(Math.max(...refusedAfterMs)).toBeLessThan(REVOCATION_BUDGET_MS);
    expect(Math.max(...logoutMs)).toBeLessThan(REVOCATION_BUDGET_MS);
  });

  it('limits each counter fleet-wide near the limit while Redis is down: per instance a bucket of ceil(30 / 2) at half the rate', async () => {
    const rounds = [];
    for (let i = 0; i < 3; i++) rounds.push(await burst(80));
    figures.admittedPerCounterDuringOutage = rounds;
    // Two buckets of 15, each draining 5 GET/s: together 30 at once and 10 per second, the fleet's bucket.
    for (const round of rounds) expectFleetWide(round, GET_LIMIT / 2);

    // The drain, on one instance alone: 20 GET/s for 2 s. A bucket of 15 draining at half the fleet's rate
    // (one GET every 200 ms) admits at most 15 + elapsed / 200 ms; at the fleet's rate it would be 15 + elapsed /
    // 100 ms, about 10 more.
    const ip = freshIp();
    let admitted = 0;
    const started = performance.now();
    for (let i = 0; i < 40; i++) {
      const answer = await call(a.url, 'GET', '/v1/products', { ip });
      expect(answer.headers.get('x-rate-limit-limit')).toBe('15');
      if (answer.status === 401) admitted++;
      await sleep(50);
    }
    const elapsed = performance.now() - started;
    figures.oneInstanceDuringOutage = { admitted, elapsedMs: Math.round(elapsed) };
    expect(admitted).toBeGreaterThanOrEqual(15);
    expect(admitted).toBeLessThanOrEqual(15 + Math.floor(elapsed / (2 * GET_INTERVAL_MS)));
  });

  it('locks an e-mail fleet-wide near 10 failed logins while Redis is down: ceil(10 / 2) per instance', async () => {
    const email = `nobody-${Date.now()}@example.test`;
    const attempt = (url: string) =>
      call(url, 'POST', '/v1/users/authenticatefinish', {
        ip: freshIp(),
        body: { email, password: 'wrong password', company_id: account.companies[0] },
      });
    const statuses: number[] = [];
    for (const url of [a.url, b.url]) for (let i = 0; i < 6; i++) statuses.push((await attempt(url)).status);
    const locked = await attempt(a.url);
    expect(locked.body).toMatchObject({ error: ['error_rate_limit_exceed'] });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    figures.failedLoginsCheckedFleetWide = statuses.filter((status) => status === 401).length;
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 401, 401, 401, 401, 401, 429]);
  });

  it('answered no request of the load with a 5xx during the outage', async () => {
    // Keep Redis away for the 10 seconds, under load, before it comes back.
    await sleep(Math.max(0, OUTAGE_MS - (performance.now() - outageStarted)));
    figures.loadRequestsSoFar = load.answers.length;
    figures.loadLoginsSoFar = load.answers.filter((answer) => answer.path.endsWith('authenticatefinish')).length;
    expect(load.serverErrors).toEqual([]);
    expect(load.answers.filter((answer) => answer.status === 503)).toEqual([]);
    expect(load.answers.filter((answer) => answer.status === 0)).toEqual([]);
    for (const service of [a, b]) {
      const records = logRecords(service.child.stdout);
      // Opened by the hang and by the kill: one line each, never one per request.
      expect(records.filter((record) => record.event === 'rate_limit_breaker_open')).toHaveLength(2);
      expect(records.filter((record) => record.level === 'error' || record.level === 'fatal')).toEqual([]);
    }
  });

  it('shares counters through Redis again once it is back, by itself', async () => {
    await redis.start();
    const restarted = performance.now();
    figures.outageMs = Math.round(restarted - outageStarted);
    for (const service of [a, b]) {
      while ((await metric(service.url, 'rate_limit_storage_breaker_open')) !== 0) {
        if (performance.now() - restarted > 15_000) throw new Error('the breaker did not close within 15 s');
        await sleep(50);
      }
    }
    figures.recoveredAfterRestartMs = Math.round(performance.now() - restarted);

    // Shared again: DELETEs through A, B, A fill one bucket of 3; the next, through B, is refused.
    const ip = freshIp();
    const remaining: string[] = [];
    for (const url of [a.url, b.url, a.url]) {
      const answer = await call(url, 'DELETE', '/v1/products/1', { ip });
      expect(answer.status).toBe(401);
      remaining.push(answer.headers.get('x-rate-limit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expect((await call(b.url, 'DELETE', '/v1/products/1', { ip })).status).toBe(429);
    const again = await burst(80);
    figures.admittedAfterRecovery = again;
    expectFleetWide(again, GET_LIMIT);

    await load.stop();
    figures.loadRequests = load.answers.length;
    expect(load.serverErrors).toEqual([]);
  });
});
