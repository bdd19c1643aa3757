import type { RedisConnection } from '../redis-client/redis-connection';
import { DeadlineError, withDeadline } from '../common/runtime/deadline';
import { RedisAdmission } from './redis-admission';

// The one path the real-server specs cannot time: a script that answers after the deadline. A stand-in connection
// holds every script's answer until the test has seen the deadline pass (`answer()`), so a stalled event loop
// cannot make the answer arrive first, and records what is sent after.
function lateRedis(reply: [number, string], isCluster: boolean) {
  const removed: string[] = [];
  const held: Array<() => void> = [];
  let answered = false;
  const redis = {
    isCluster,
    evalsha: () => new Promise((resolve) => (answered ? resolve(reply) : held.push(() => resolve(reply)))),
    zrem: (key: string, ...ids: string[]) => {
      removed.push(`${key} ${ids.join(' ')}`);
      return Promise.resolve(1);
    },
  } as unknown as RedisConnection;
  const answer = () => {
    answered = true;
    held.splice(0).forEach((release) => release());
  };
  return { redis, removed, answer };
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
  it('sends the leases returned in one turn back in one ZREM per credential, in the turn after', async () => {
    const { redis, removed, answer } = lateRedis([1, '100.000'], false);
    answer();
    const admission = new RedisAdmission(redis, (work) => work);
    const admitted = await Promise.all(
      ['cc:a', 'cc:a', 'cc:b', 'cc:a'].map((key) => admission.admit('req:k', 3000, 30, 1, { key, cap: 20 })),
    );
    for (const record of admitted) record.lease!.release();
    admitted[0]!.lease!.release();
    expect(removed).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(removed).toEqual([
      expect.stringMatching(/^cc:a \S+\.1 \S+\.2 \S+\.4$/),
      expect.stringMatching(/^cc:b \S+\.3$/),
    ]);
    admitted[1]!.lease!.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(removed).toHaveLength(2);
  });
});
