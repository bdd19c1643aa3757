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
import { killChildren, logRecords, requireBuild, type RunningService } from './support/processes';
import { ClusterSet, SentinelSet } from './support/redis-topology';

const REVOCATION_BUDGET_MS = 1000;
const BUCKETS_BUDGET_MS = 5000;
/**
 * Buckets are checked on many clients, not one, and the rate is asserted: sharing that holds for one lucky client
 * out of many tries is not sharing. 50 clients, each on a fresh address; at least 48 (96 %) must see one bucket
 * on both instances, before the fault and again once the promoted Redis answers. A Redis reply later than the
 * storage's deadline is answered from the instance's own bucket by design (docs/contract.md, "Operations"), so a
 * stall of the whole machine can cost a client or two; 2 in 50 is that margin, and a broken sharing (each instance
 * on its own bucket) scores 0. Measured on this 2-core machine beside a browser suite: 50 of 50 in both forms,
 * before and after. (Checked one request after the other, 1 to 3 clients in 50 missed, every one a drain
 * between the two decisions, not a second bucket: hence the check below, which drain cannot fool.)
 */
const PAIRS = 50;
const PAIRS_SHARED = 48;
/** Requests per instance in one client's check, and the GET capacity at RATE_LIMIT_SCALE 1 (docs/contract.md). */
const PER_SIDE = 5;
const GET_LIMIT = 30;

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

  /** How many of {@link PAIRS} clients, each on a fresh address, see one bucket on both instances; misses kept. */
  async function sharedPairs(jwt: string, misses: string[]): Promise<number> {
    let shared = 0;
    for (let pair = 0; pair < PAIRS; pair++) {
      const miss = await bucketsShared(jwt);
      if (miss === null) shared++;
      else misses.push(`#${pair} ${miss}`);
    }
    return shared;
  }

  /**
   * Whether one client's bucket is shared: {@link PER_SIDE} requests on each instance, all at once. On two buckets
   * neither holds more than its own {@link PER_SIDE}, so the lowest remaining count is at least 30 - PER_SIDE; on
   * one bucket (30 GET per 3 s, one request drains every 100 ms) the last decided sees all 2 × PER_SIDE less what
   * drained meanwhile, so it is lower unless the decisions spread over PER_SIDE × 100 ms. Null when shared, else
   * what was seen.
   */
  async function bucketsShared(jwt: string): Promise<string | null> {
    const ip = freshIp();
    const answers = await Promise.all(
      [a.url, b.url].flatMap((url) =>
        Array.from({ length: PER_SIDE }, () => call(url, 'GET', '/v1/users/me', { credential: jwt, ip })),
      ),
    );
    const remaining = answers.map((answer) => Number(answer.headers.get('x-rate-limit-remaining')));
    const shared = answers.every((answer) => answer.status === 200) && Math.min(...remaining) < GET_LIMIT - PER_SIDE;
    return shared ? null : `statuses ${answers.map((answer) => answer.status)} remaining ${remaining}`;
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
    // What each instance said about its revocation notices (unsent, unconfirmed, a listener lost): why a slow
    // refusal was slow.
    figures.revocationLog = [a, b].map((service) =>
      service
        ? logRecords(service.child.stdout)
            .filter((record) => /revocation/.test(String(record.msg)))
            .map((record) => `${String(record.time)} ${String(record.msg)}`)
        : [],
    );
    console.log(`Redis failover figures: ${JSON.stringify(figures)}`);
    await killChildren();
    await topology?.stop();
    await database?.drop();
  });

  it('shares buckets and carries a logout to the other instance within 1 s before any fault', async () => {
    const jwt = ((await logIn(a.url, account)).body as Session).jwt;
    const misses: string[] = [];
    figures.sharedBefore = await sharedPairs(jwt, misses);
    figures.missesBefore = misses;
    expect(figures.sharedBefore).toBeGreaterThanOrEqual(PAIRS_SHARED);
    figures.logoutBeforeMs = Math.round(await logoutSeenByB());
    expect(figures.logoutBeforeMs).toBeLessThan(REVOCATION_BUDGET_MS);
  });

  it('survives the master being SIGKILLed: logout refused within 1 s, buckets exact within 5 s, no 5xx', async () => {
    const jwt = ((await logIn(a.url, account)).body as Session).jwt;
    const failover = topology.killMaster();
    // Awaited below; a failed assertion before that must not leave its rejection to whichever file runs next.
    failover.catch(() => undefined);
    // During the failover: the database path carries the revocation while Redis switches.
    figures.logoutDuringMs = Math.round(await logoutSeenByB());
    expect(figures.logoutDuringMs).toBeLessThan(REVOCATION_BUDGET_MS);
    const { killedAt, promotedAt } = await failover;
    figures.promotionMs = promotedAt - killedAt;
    // The moment the buckets are exact again: the first client after the promotion whose count B continues.
    let shared = false;
    while (!shared && Date.now() - promotedAt < BUCKETS_BUDGET_MS + 2000) {
      shared = (await bucketsShared(jwt)) === null;
      if (!shared) await sleep(100);
    }
    figures.bucketsExactAfterPromotionMs = Date.now() - promotedAt;
    expect(shared).toBe(true);
    expect(figures.bucketsExactAfterPromotionMs).toBeLessThan(BUCKETS_BUDGET_MS);
    // And they stay exact: one lucky pair is not a recovery. The same rate as before the fault.
    const misses: string[] = [];
    figures.sharedAfter = await sharedPairs(jwt, misses);
    figures.missesAfter = misses;
    expect(figures.sharedAfter).toBeGreaterThanOrEqual(PAIRS_SHARED);
    figures.logoutAfterMs = Math.round(await logoutSeenByB());
    expect(figures.logoutAfterMs).toBeLessThan(REVOCATION_BUDGET_MS);

    await load.stop();
    figures.loadRequests = load.answers.length;
    expect(load.answers.filter((answer) => answer.status >= 500 || answer.status === 0)).toEqual([]);
  });
});
