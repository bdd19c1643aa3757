import type { RedisConnection } from '../redis-client/redis-connection';
import { DeadlineError, withDeadline } from './circuit-breaker';
import { RedisAdmission } from './redis-admission';

// The one path the real-server specs cannot time: a script that answers after the deadline. A stand-in connection
// answers each script 50 ms late (the deadline is 10 ms) and records what is sent after.
function lateRedis(answer: [number, string], isCluster: boolean) {
  const removed: string[] = [];
  const redis = {
    isCluster,
    evalsha: () => new Promise((resolve) => setTimeout(() => resolve(answer), 50)),
    zrem: (key: string, id: string) => {
      removed.push(`${key} ${id}`);
      return Promise.resolve(1);
    },
  } as unknown as RedisConnection;
  return { redis, removed };
}

const deadline = <T>(work: Promise<T>) => withDeadline(work, 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([false, true])('RedisAdmission whose answer comes after the deadline (Cluster: %p)', (isCluster) => {
  it('returns the lease Redis took late, which no request holds', async () => {
    const { redis, removed } = lateRedis([1, '100.000'], isCluster);
    const admission = new RedisAdmission(redis, deadline);
    await expect(admission.admit('req:k', 3000, 30, 1, { key: 'cc:late', cap: 20 })).rejects.toBeInstanceOf(
      DeadlineError,
    );
    await sleep(80);
    expect(removed).toEqual([expect.stringMatching(/^cc:late \S+\.1$/)]);
  });

  it('returns nothing when the late answer took no lease', async () => {
    const { redis, removed } = lateRedis([2, '0'], isCluster);
    const admission = new RedisAdmission(redis, deadline);
    await expect(admission.admit('req:k', 3000, 30, 1, { key: 'cc:full', cap: 20 })).rejects.toBeInstanceOf(
      DeadlineError,
    );
    await sleep(80);
    expect(removed).toEqual([]);
  });
});
