import { performance } from 'node:perf_hooks';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import {
  call,
  createFleetAccount,
  type FleetAccount,
  freshIp,
  logIn,
  type Session,
  sleep,
  startFleet,
} from './support/fleet';
import { PostgresProxy } from './support/postgres-proxy';
import { killChildren, logRecords, requireBuild, type RunningService } from './support/processes';
import { RedisServer } from './support/redis-server';

const OUTAGE_MS = 10_000;

/**
 * docs/contract.md "Operations": while PostgreSQL is down, a request that needs no query (a credential verified before
 * the outage) keeps its normal answer, whatever needs the database answers 503, and the outage is logged once
 * when it starts and once when it ends with the count of refused requests — never a line or a stack per request.
 * Two built instances, a Redis of this test's own, PostgreSQL behind a TCP proxy that refuses for 10 s.
 */
describe('PostgreSQL stopped for 10 s: verified credentials keep their answer, the outage is logged once', () => {
  let redis: RedisServer;
  let proxy: PostgresProxy;
  let database: ProvisionedDatabase;
  let account: FleetAccount;
  let services: RunningService[];
  const tally = new Map<string, Map<number, number>>();

  const count = (what: string, status: number) => {
    const byStatus = tally.get(what) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    tally.set(what, byStatus);
  };

  beforeAll(async () => {
    requireBuild();
    redis = await RedisServer.start();
    database = await provisionDatabase('postgres');
    const real = new URL(database.url!);
    proxy = new PostgresProxy(real.hostname, Number(real.port || 5432));
    await proxy.start();
    const proxied = new URL(database.url!);
    proxied.port = String(proxy.port);
    services = await startFleet(2, { ...database.env, DATABASE_URL: proxied.toString(), REDIS_URL: redis.url });
    account = await createFleetAccount(database.url!);
  }, 60_000);

  afterAll(async () => {
    await killChildren();
    await proxy?.close();
    await redis?.kill();
    await database?.drop();
  });

  it('answers verified credentials normally, 503 for the rest, never a revoked one, and logs two lines', async () => {
    const [a, b] = services;
    const verified = (await logIn(a.url, account)).body as Session;
    const revoked = (await logIn(a.url, account)).body as Session;
    for (const service of services) {
      for (const session of [verified, revoked]) {
        expect(
          (await call(service.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() })).status,
        ).toBe(200);
      }
    }
    expect((await call(a.url, 'POST', '/v1/users/logout', { credential: revoked.jwt, ip: freshIp() })).status).toBe(
      204,
    );
    expect((await call(b.url, 'GET', '/v1/users/me', { credential: revoked.jwt, ip: freshIp() })).status).toBe(400);

    const refusedBy = new Map<string, number>(services.map((service) => [service.url, 0]));
    await proxy.setMode('refuse');
    const until = performance.now() + OUTAGE_MS;
    while (performance.now() < until) {
      for (const service of services) {
        const asks = {
          me: () => call(service.url, 'GET', '/v1/users/me', { credential: verified.jwt, ip: freshIp() }),
          list: () => call(service.url, 'GET', '/v1/users', { credential: verified.jwt, ip: freshIp() }),
          revoked: () => call(service.url, 'GET', '/v1/users/me', { credential: revoked.jwt, ip: freshIp() }),
        };
        for (const [what, ask] of Object.entries(asks)) {
          const answer = await ask();
          count(what, answer.status);
          if (answer.status === 503) refusedBy.set(service.url, refusedBy.get(service.url)! + 1);
        }
      }
      await sleep(50);
    }
    await proxy.setMode('forward');
    console.log(`answers during the outage: ${JSON.stringify([...tally].map(([k, v]) => [k, [...v]]))}`);

    // The verified credential kept its normal answer on both instances, every time.
    expect([...tally.get('me')!.keys()]).toEqual([200]);
    // What needs the database was refused in the contract's way; the revoked credential was never let in.
    expect([...tally.get('list')!.keys()]).toEqual([503]);
    expect(tally.get('revoked')!.get(200)).toBeUndefined();

    for (const service of services) {
      const deadline = Date.now() + 5000;
      const ended = () => logRecords(service.child.stdout).filter((record) => record.event === 'database_outage_ended');
      while (ended().length === 0 && Date.now() < deadline) await sleep(100);
      const records = logRecords(service.child.stdout);
      expect(records.filter((record) => record.event === 'database_outage_started')).toHaveLength(1);
      expect(ended()).toEqual([expect.objectContaining({ refused_requests: refusedBy.get(service.url) })]);
      // Never a stack (in a JSON log line its newlines are escaped: a backslash, n, spaces, "at "), never a
      // line per refused request.
      expect(service.child.stdout).not.toMatch(/\\n\s+at /);
      expect(records.filter((record) => record.msg === 'database unavailable')).toEqual([]);
      const warnings = records.filter((record) => record.level !== 'info' && record.level !== 'debug');
      expect(warnings.length).toBeLessThan(10);
    }
  });
});
