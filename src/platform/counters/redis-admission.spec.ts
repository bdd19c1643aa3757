import type { RedisConnection } from '../redis-client/redis-connection';
import { DeadlineError, withDeadline } from '../common/runtime/deadline';
import { RedisAdmission } from './redis-admission';
import { RETURN_WAIT_MS } from './redis-lease-returns';

// The one path the real-server specs cannot time: a script that answers after the deadline. A stand-in connection
// holds every script's answer until the test has seen the deadline pass (`answer()`), so a stalled event loop
// cannot make the answer arrive first, and records what is sent after.
function lateRedis(reply: [number, string], isCluster: boolean) {
  const removed: string[] = [];
  const sent: unknown[][] = [];
  const held: Array<() => void> = [];
  let answered = false;
  let failing = false;
  const redis = {
    isCluster,
    evalsha: (...args: unknown[]) => {
      sent.push(args);
      if (failing) return Promise.reject(new Error('Connection is closed.'));
      return new Promise((resolve) => (answered ? resolve(reply) : held.push(() => resolve(reply))));
    },
    zrem: (key: string, ...ids: string[]) => {
      removed.push(`${key} ${ids.join(' ')}`);
      return Promise.resolve(1);
    },
  } as unknown as RedisConnection;
  const answer = () => {
    answered = true;
    held.splice(0).forEach((release) => release());
  };
  const fail = (on: boolean) => (failing = on);
  return { redis, removed, sent, answer, fail };
}

const deadline = <T>(work: Promise<T>) => withDeadline(work, 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([false, true])('RedisAdmission whose answer comes after the deadline (Cluster: %p)', (isCluster) => {
  it('returns the lease Redis took late, which no request holds', async () => {
    const { redis, removed, answer } = lateRedis([1, '100.000'], isCluster);
    const admission = new RedisAdmission(redis, deadline);
    await expect(admission.admit('req:k', 3000, 30, 1, { key: 'cc:late', cap: 20 })).rejects.toBeInstanceOf(
      DeadlineError,
    );
    answer();
    await sleep(20);
    expect(removed).toEqual([expect.stringMatching(/^cc:late \S+\.1$/)]);
  });

  it('returns nothing when the late answer took no lease', async () => {
    const { redis, removed, answer } = lateRedis([2, '0'], isCluster);
    const admission = new RedisAdmission(redis, deadline);
    await expect(admission.admit('req:k', 3000, 30, 1, { key: 'cc:full', cap: 20 })).rejects.toBeInstanceOf(
      DeadlineError,
    );
    answer();
    await sleep(20);
    expect(removed).toEqual([]);
  });
});

describe('RedisAdmission returning leases', () => {
  const ask = (key: string) => ({ key, cap: 20 });

  it("carries a returned lease in its credential's next admission, which sends nothing else", async () => {
    const { redis, removed, sent, answer } = lateRedis([1, '100.000'], false);
    answer();
    const admission = new RedisAdmission(redis, (work) => work);
    const [a1, a2, b1] = await Promise.all(
      ['cc:a', 'cc:a', 'cc:b'].map((key) => admission.admit('req:k', 3000, 30, 1, ask(key))),
    );
    a1.lease!.release();
    a2.lease!.release();
    b1.lease!.release();
    a1.lease!.release();
    await admission.admit('req:k', 3000, 30, 1, ask('cc:a'));
    // evalsha(sha, 2, bucket, leases, period, capacity, cost, cap, id, lease ms, …returned): a's two ride along.
    expect(sent.at(-1)!.slice(10)).toEqual([expect.stringMatching(/\.1$/), expect.stringMatching(/\.2$/)]);
    await sleep(RETURN_WAIT_MS + 20);
    // b had no admission to ride on: it goes by itself; a's went with the admission and are not sent again.
    expect(removed).toEqual([expect.stringMatching(/^cc:b \S+\.3$/)]);
  });

  it('sends what no admission carried after the wait, one ZREM per credential, each lease once', async () => {
    const { redis, removed, answer } = lateRedis([1, '100.000'], false);
    answer();
    const admission = new RedisAdmission(redis, (work) => work);
    const admitted = await Promise.all(
      ['cc:a', 'cc:a', 'cc:b', 'cc:a'].map((key) => admission.admit('req:k', 3000, 30, 1, ask(key))),
    );
    for (const record of admitted) record.lease!.release();
    admitted[0]!.lease!.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(removed).toEqual([]);
    await sleep(RETURN_WAIT_MS + 20);
    expect(removed).toEqual([
      expect.stringMatching(/^cc:a \S+\.1 \S+\.2 \S+\.4$/),
      expect.stringMatching(/^cc:b \S+\.3$/),
    ]);
    admitted[1]!.lease!.release();
    await sleep(RETURN_WAIT_MS + 20);
    expect(removed).toHaveLength(2);
  });

  it.each([false, true])(
    'sends the returns again when the admission carrying them fails (Cluster: %p)',
    async (isCluster) => {
      const { redis, removed, answer, fail } = lateRedis([1, '100.000'], isCluster);
      answer();
      const admission = new RedisAdmission(redis, (work) => work);
      const first = await admission.admit('req:k', 3000, 30, 1, ask('cc:a'));
      first.lease!.release();
      fail(true);
      await expect(admission.admit('req:k', 3000, 30, 1, ask('cc:a'))).rejects.toThrow('Connection is closed.');
      fail(false);
      await sleep(RETURN_WAIT_MS + 20);
      expect(removed).toEqual([expect.stringMatching(/^cc:a \S+\.1$/)]);
    },
  );
});
