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
import { killChildren, requireBuild, type RunningService } from './support/processes';
import { ClusterSet, SentinelSet } from './support/redis-topology';

const REVOCATION_BUDGET_MS = 1000;
const BUCKETS_BUDGET_MS = 5000;

/**
 * docs/contract.md "Operations": a Redis failover (Sentinel promotes the replica; a Cluster master dies and its replica
 * takes over) is survived like an outage. Two built instances on REDIS_URL in each form, under steady traffic;
 * the master is SIGKILLed: no 5xx, a logout during the failover is refused on the other instance within 1 s, and
 * the shared buckets are exact again within 5 s of the promotion.
 */
describe.each([
  ['Sentinel', () => SentinelSet.start()],
  ['Cluster', () => ClusterSet.start()],
] as const)('Redis %s failover under load (two instances)', (form, start) => {
  let topology: SentinelSet | ClusterSet;
  let database: ProvisionedDatabase;
  let account: FleetAccount;
  let a: RunningService;
  let b: RunningService;
  let load: Load;
  const figures: Record<string, unknown> = { form };

  /** A logout on A, then B asked until it refuses; the time from the logout's answer to B's refusal. */
  async function logoutSeenByB(): Promise<number> {
    const session = (await logIn(a.url, account)).body as Session;
    expect((await call(b.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() })).status).toBe(200);
    expect((await call(a.url, 'POST', '/v1/users/logout', { credential: session.jwt, ip: freshIp() })).status).toBe(
      204,
    );
    const answered = performance.now();
    let refused = await call(b.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() });
    while (refused.status === 200 && performance.now() - answered < 3 * REVOCATION_BUDGET_MS) {
      await sleep(20);
      refused = await call(b.url, 'GET', '/v1/users/me', { credential: session.jwt, ip: freshIp() });
    }
    expect(refused.body).toMatchObject({ error: ['error_jwt_blacklisted'] });
    return performance.now() - answered;
  }

  /** Whether one client's bucket is shared: B's remaining count continues A's. */
  async function bucketsShared(jwt: string): Promise<boolean> {
    const ip = freshIp();
    const first = await call(a.url, 'GET', '/v1/users/me', { credential: jwt, ip });
    const second = await call(b.url, 'GET', '/v1/users/me', { credential: jwt, ip });
    const remaining = (answer: typeof first) => Number(answer.headers.get('x-rate-limit-remaining'));
    return first.status === 200 && second.status === 200 && remaining(second) === remaining(first) - 1;
  }

  beforeAll(async () => {
    requireBuild();
    topology = await start();
    database = await provisionDatabase('postgres');
    [a, b] = await startFleet(2, { ...database.env, REDIS_URL: topology.url });
    account = await createFleetAccount(database.url!);
    const jwt = ((await logIn(a.url, account)).body as Session).jwt;
    load = new Load([a.url, b.url], account, jwt).start(4);
  }, 120_000);

  afterAll(async () => {
    await load?.stop();
    console.log(`Redis failover figures: ${JSON.stringify(figures)}`);
    await killChildren();
    await topology?.stop();
    await database?.drop();
  });

  it('shares buckets and carries a logout to the other instance within 1 s before any fault', async () => {
    const jwt = ((await logIn(a.url, account)).body as Session).jwt;
    // A Redis reply later than the storage's deadline is answered from the instance's own bucket by design, so
    // one pair of requests on a machine busy with other suites can miss; sharing must hold within the same
    // budget the failover gets.
    let shared = false;
    for (const since = Date.now(); !shared && Date.now() - since < BUCKETS_BUDGET_MS;) {
      shared = await bucketsShared(jwt);
      if (!shared) await sleep(100);
    }
    expect(shared).toBe(true);
    figures.logoutBeforeMs = Math.round(await logoutSeenByB());
    expect(figures.logoutBeforeMs).toBeLessThan(REVOCATION_BUDGET_MS);
  });

  it('survives the master being SIGKILLed: logout refused within 1 s, buckets exact within 5 s, no 5xx', async () => {
    const jwt = ((await logIn(a.url, account)).body as Session).jwt;
    const failover = topology.killMaster();
    // During the failover: the database path carries the revocation while Redis switches.
    figures.logoutDuringMs = Math.round(await logoutSeenByB());
    expect(figures.logoutDuringMs).toBeLessThan(REVOCATION_BUDGET_MS);
    const { killedAt, promotedAt } = await failover;
    figures.promotionMs = promotedAt - killedAt;
    let shared = false;
    while (!shared && Date.now() - promotedAt < BUCKETS_BUDGET_MS + 2000) {
      shared = await bucketsShared(jwt);
      if (!shared) await sleep(100);
    }
    figures.bucketsExactAfterPromotionMs = Date.now() - promotedAt;
    expect(shared).toBe(true);
    expect(figures.bucketsExactAfterPromotionMs).toBeLessThan(BUCKETS_BUDGET_MS);
    figures.logoutAfterMs = Math.round(await logoutSeenByB());
    expect(figures.logoutAfterMs).toBeLessThan(REVOCATION_BUDGET_MS);

    await load.stop();
    figures.loadRequests = load.answers.length;
    expect(load.answers.filter((answer) => answer.status >= 500 || answer.status === 0)).toEqual([]);
  });
});
