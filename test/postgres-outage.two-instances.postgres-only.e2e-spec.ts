import { performance } from 'node:perf_hooks';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import {
  call,
  createFleetAccount,
  type FleetAccount,
  freshIp,
  Load,
  logIn,
  type Session,
  sleep,
  startFleet,
} from './support/fleet';
import { PostgresProxy, type ProxyMode } from './support/postgres-proxy';
import { killChildren, logRecords, requireBuild, type RunningService } from './support/processes';
import { RedisServer } from './support/redis-server';

/** docs/contract.md: a database that cannot be reached answers 503 error_service_unavailable, fast. */
const UNAVAILABLE_BUDGET_MS = 2000;
const RECOVERY_BUDGET_MS = 10_000;
const REVOCATION_BUDGET_MS = 1000;
const UNAVAILABLE = { error: ['error_service_unavailable'], message: expect.any(String) };

/**
 * PostgreSQL stopped (every connection reset, the port closed) and stalled (the network swallows everything),
 * then back, behind a TCP proxy in front of the shared server, with two built service processes and a Redis of
 * this test's own, under load: 503 in the contract's shape within 2 s, and recovery by itself, no restart.
 */
describe('PostgreSQL stopped and restarted under load (two instances)', () => {
  let redis: RedisServer;
  let proxy: PostgresProxy;
  let database: ProvisionedDatabase;
  let account: FleetAccount;
  let a: RunningService;
  let b: RunningService;
  let load: Load;
  let jwt: string;
  const figures: Record<string, unknown> = {};

  const users = (url: string) => call(url, 'GET', '/v1/users', { credential: jwt, ip: freshIp() });
  const me = (url: string, credential: string) => call(url, 'GET', '/v1/users/me', { credential, ip: freshIp() });

  /** Sends the requests that need the database to both instances for `forMs`; every answer must be a fast 503. */
  async function expectUnavailable(forMs: number, unseenJwt: string): Promise<number[]> {
    const latencies: number[] = [];
    const until = performance.now() + forMs;
    while (performance.now() < until) {
      const answers = await Promise.all([
        users(a.url),
        users(b.url),
        logIn(a.url, account),
        logIn(b.url, account),
        // A credential neither instance has seen needs the database to be judged: 503, not 401.
        me(b.url, unseenJwt),
      ]);
      for (const answer of answers) {
        expect({ status: answer.status, body: answer.body }).toEqual({ status: 503, body: UNAVAILABLE });
        latencies.push(Math.round(answer.ms));
      }
      await sleep(100);
    }
    return latencies;
  }

  /** Time from the database coming back until both instances serve requests that need it again. */
  async function recovery(): Promise<number> {
    const started = performance.now();
    for (const url of [a.url, b.url]) {
      while ((await users(url)).status !== 200) {
        if (performance.now() - started > RECOVERY_BUDGET_MS) throw new Error('no recovery within the budget');
        await sleep(50);
      }
    }
    const ms = Math.round(performance.now() - started);
    expect((await logIn(b.url, account)).status).toBe(200);
    return ms;
  }

  async function outage(mode: ProxyMode, forMs: number): Promise<void> {
    const unseen = (await logIn(a.url, account)).body as Session;
    await proxy.setMode(mode);
    const latencies = await expectUnavailable(forMs, unseen.jwt);
    await proxy.setMode('forward');
    const recoveredMs = await recovery();
    figures[mode] = { answers503: latencies.length, worst503Ms: Math.max(...latencies), recoveredMs };
    expect(Math.max(...latencies)).toBeLessThan(UNAVAILABLE_BUDGET_MS);
  }

  beforeAll(async () => {
    requireBuild();
    redis = await RedisServer.onFreePort();
    await redis.start();
    database = await provisionDatabase('postgres');
    const real = new URL(database.url!);
    proxy = new PostgresProxy(real.hostname, Number(real.port || 5432));
    await proxy.start();
    const proxied = new URL(database.url!);
    proxied.port = String(proxy.port);
    [a, b] = await startFleet(2, { ...database.env, DATABASE_URL: proxied.toString(), REDIS_URL: redis.url });
    account = await createFleetAccount(database.url!);
    jwt = ((await logIn(a.url, account)).body as Session).jwt;
    load = new Load([a.url, b.url], account, jwt).start(4);
  }, 60_000);

  afterAll(async () => {
    await load?.stop();
    console.log(`PostgreSQL outage figures: ${JSON.stringify(figures)}`);
    await killChildren();
    await proxy?.close();
    await redis?.kill();
    await database?.drop();
  });

  it('serves both instances through the proxy', async () => {
    for (const url of [a.url, b.url]) expect((await users(url)).status).toBe(200);
  });

  it('answers 503 in shape within 2 s while the server is stopped, and recovers by itself', async () => {
    await outage('refuse', 4000);
  });

  it('answers 503 in shape within 2 s while the network swallows everything, and recovers by itself', async () => {
    await outage('blackhole', 3000);
  });

  it('answered no request of the load with a 5xx other than 503, and every 503 in the contract shape', async () => {
    await load.stop();
    figures.loadRequests = load.answers.length;
    figures.load503 = load.answers.filter((answer) => answer.status === 503).length;
    expect(load.serverErrors).toEqual([]);
    expect(load.answers.filter((answer) => answer.status === 0)).toEqual([]);
    for (const answer of load.answers.filter(({ status }) => status === 503)) expect(answer.body).toEqual(UNAVAILABLE);
    for (const service of [a, b]) {
      const records = logRecords(service.child.stdout);
      expect(records.filter((record) => record.level === 'error' || record.level === 'fatal')).toEqual([]);
    }
  });

  it('revocations travel over PostgreSQL again after the outage: with Redis gone too, B refuses within 1 s', async () => {
    await redis.kill();
    const session = (await logIn(a.url, account)).body as Session;
    const seen = await me(b.url, session.jwt);
    expect(seen.status).toBe(200);
    const logout = await call(a.url, 'POST', '/v1/users/logout', { credential: session.jwt, ip: freshIp() });
    expect(logout.status).toBe(204);
    const answered = performance.now();
    // Each call's status and time, and what both instances logged about revocations: a slow refusal then says
    // whether the notice came late or the answer did.
    const calls = [`seen ${seen.status} in ${Math.round(seen.ms)} ms`, `logout in ${Math.round(logout.ms)} ms`];
    let refused = await me(b.url, session.jwt);
    calls.push(`${refused.status} in ${Math.round(refused.ms)} ms`);
    while (refused.status === 200 && performance.now() - answered < 2 * REVOCATION_BUDGET_MS) {
      await sleep(20);
      refused = await me(b.url, session.jwt);
      calls.push(`${refused.status} in ${Math.round(refused.ms)} ms`);
    }
    figures.refusedAfterPostgresRecoveryMs = Math.round(performance.now() - answered);
    figures.revocationCalls = calls;
    figures.revocationLog = [a, b].map((service) =>
      logRecords(service.child.stdout)
        .filter((record) => /revocation/.test(String(record.msg)))
        .map((record) => `${String(record.time)} ${String(record.msg)}`),
    );
    expect(refused.body).toMatchObject({ error: ['error_jwt_blacklisted'] });
    expect(performance.now() - answered).toBeLessThan(REVOCATION_BUDGET_MS);
  });
});
