import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../redis-client/redis-connection';
import { bucketRecord, EPSILON_MS } from './leaky-bucket';
import type { AdmitRecord, Lease, LeaseAsk } from './rate-limit-storage';
import { LeaseReturns, RedisLease } from './redis-lease-returns';
import { runScript, script } from './redis-scripts';

/**
 * How long a lease lives unless returned (CONCURRENCY_LEASE_MS): a crashed instance's leases lapse within this,
 * and a request still running after it no longer counts against its credential's cap.
 */
export const LEASE_TTL_MS = 30_000;

const NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
`;

/**
 * The lease half of an admission (docs/contract.md, "Beyond the bucket"): a sorted set per credential, one
 * member per request in flight, scored with the instant (server clock, ms) it lapses; the set itself expires
 * with its newest lease, so a credential that stops sending leaves nothing behind. Lapsed members are dropped
 * before counting. KEYS[n]: the set. ARGV[a..a+2]: cap, lease id, lease lifetime in ms.
 */
const LEASE_STEP = (n: number, a: number): string => `
redis.call('ZREMRANGEBYSCORE', KEYS[${n}], '-inf', now)
if redis.call('ZCARD', KEYS[${n}]) >= tonumber(ARGV[${a}]) then return { 2, string.format('%.3f', level) } end
redis.call('ZADD', KEYS[${n}], now + tonumber(ARGV[${a + 2}]), ARGV[${a + 1}])
redis.call('PEXPIRE', KEYS[${n}], tonumber(ARGV[${a + 2}]))
`;

/**
 * Leases returned since the credential's last admission, carried by this one (ARGV[a..]): removed first, so the
 * cap counts without them and no command of their own is sent.
 */
const CARRIED_RETURNS = (n: number, a: number): string =>
  `if #ARGV >= ${a} then redis.call('ZREM', KEYS[${n}], unpack(ARGV, ${a})) end`;

/**
 * A request's admission in one script, one round trip: the bucket's decision for `cost` slots (the GCRA of
 * leaky-bucket.ts, as the bucket script of redis-rate-limit.storage.ts) and, with a second key, a lease under the
 * cap, asked only if the bucket admits and before the bucket is charged. KEYS: the bucket [, the leases]. ARGV:
 * period ms, capacity, cost [, cap, lease id, lease ms, lease ids returned since]. Returns { 1 admitted | 0 refused
 * by the bucket | 2 refused by the cap, the bucket's backlog in ms after the decision (a string: Lua numbers would be
 * truncated) }. Two keys: on a single server or Sentinel only (Redis Cluster: {@link LEASE_ALONE}).
 */
const ADMIT_SCRIPT = (withLease: boolean): string => `${NOW}
${withLease ? CARRIED_RETURNS(2, 7) : ''}
local period = tonumber(ARGV[1])
local level = tonumber(redis.call('GET', KEYS[1]) or '0') - now
if level < 0 or level > period + ${EPSILON_MS} then level = 0 end
local after = level + period / tonumber(ARGV[2]) * tonumber(ARGV[3])
if after > period + ${EPSILON_MS} then return { 0, string.format('%.3f', level) } end
${withLease ? LEASE_STEP(2, 4) : ''}
redis.call('SET', KEYS[1], string.format('%.3f', now + after), 'PX', math.ceil(after))
return { 1, string.format('%.3f', after) }
`;

const ADMIT = script(ADMIT_SCRIPT(false));
const ADMIT_AND_LEASE = script(ADMIT_SCRIPT(true));
/**
 * The lease alone (Redis Cluster). KEYS: the leases. ARGV: cap, lease id, lease ms, lease ids returned since.
 * Returns { 1 | 2, '0' }.
 */
const LEASE_ALONE = script(`${NOW}
${CARRIED_RETURNS(1, 4)}
local level = 0
${LEASE_STEP(1, 1)}
return { 1, '0' }
`);
/**
 * Gives a bucket back `ARGV[1]` ms of backlog (a request's slots, on Redis Cluster when the cap refused it after
 * its bucket admitted it): the TAT and the key's expiry move back together; nothing is left when it was all.
 */
const REFUND = script(`
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local pttl = redis.call('PTTL', KEYS[1])
if tat == 0 or pttl <= 0 then return 0 end
local left = pttl - tonumber(ARGV[1])
if left <= 0 then redis.call('DEL', KEYS[1]) return 1 end
redis.call('SET', KEYS[1], string.format('%.3f', tat - tonumber(ARGV[1])), 'PX', math.ceil(left))
return 1
`);
/** Leases not lapsed. KEYS: the leases. */
const LEASE_COUNT = script(`${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`);

const ignore = (): void => undefined;

/**
 * Admissions (bucket with cost, lease under the cap) for RedisRateLimitStorage, on keys it has prefixed already.
 * `deadline` is the storage's own: a check that does not answer in time fails, and the breaker judges it.
 */
export class RedisAdmission {
  /** Lease ids: this process's random tag and a sequence number, unique across the fleet. */
  private readonly tag = randomBytes(6).toString('base64url');
  private sequence = 0;
  private readonly returns: LeaseReturns;

  constructor(
    private readonly redis: RedisConnection,
    private readonly deadline: <T>(work: Promise<T>) => Promise<T>,
    private readonly leaseMs = LEASE_TTL_MS,
  ) {
    this.returns = new LeaseReturns(redis);
  }

  admit(key: string, ttl: number, limit: number, cost: number, lease?: LeaseAsk): Promise<AdmitRecord> {
    const period = Math.max(1, Math.ceil(ttl));
    const capacity = Math.max(1, Math.floor(limit));
    const slots = Math.max(1, Math.floor(cost));
    const args = [period, capacity, slots];
    if (lease === undefined) return this.decision(runScript(this.redis, ADMIT, [key], args), period, capacity, slots);
    const id = `${this.tag}.${++this.sequence}`;
    const carried = this.returns.carry(lease.key);
    const leaseArgs = [Math.max(1, Math.floor(lease.cap)), id, this.leaseMs, ...carried];
    if (this.redis.isCluster)
      return this.carrying(lease.key, carried, this.admitApart(key, args, lease.key, leaseArgs));
    const reply = runScript(this.redis, ADMIT_AND_LEASE, [key, lease.key], [...args, ...leaseArgs]);
    const lent = new RedisLease(this.returns, lease.key, id);
    return this.carrying(lease.key, carried, this.decision(reply, period, capacity, slots, lent));
  }

  /** An admission that carried returns and failed may not have run: they go again (removing twice is no harm). */
  private carrying<T>(key: string, carried: string[], admission: Promise<T>): Promise<T> {
    if (carried.length > 0) admission.catch(() => this.returns.add(key, ...carried));
    return admission;
  }

  /** Leases held under `key` now (not lapsed), on the server's clock. */
  leases(key: string): Promise<number> {
    return this.deadline(runScript(this.redis, LEASE_COUNT, [key], []) as Promise<number>);
  }

  /**
   * Redis Cluster: the bucket and the lease are two scripts (their keys may be on different nodes), sent at once
   * so the request still waits for one round trip. Not atomic between them, so each undoes the other's part of a
   * refusal: a lease taken for a request its bucket refused is returned (fire and forget), and the slots of a
   * request the cap refused are given back to its bucket (one more round trip, on that refusal only).
   */
  private admitApart(key: string, args: number[], leaseKey: string, leaseArgs: (string | number)[]) {
    const [period, capacity, slots] = args;
    const bucket = this.deadline(runScript(this.redis, ADMIT, [key], args));
    const leaseReply = runScript(this.redis, LEASE_ALONE, [leaseKey], leaseArgs);
    const leased = this.deadline(leaseReply);
    this.returnIfLate(
      Promise.all([bucket, leased]),
      leaseReply,
      new RedisLease(this.returns, leaseKey, String(leaseArgs[1])),
    );
    return Promise.all([bucket, leased]).then(async ([bucketReply, leaseReply]): Promise<AdmitRecord> => {
      const [admitted, levelMs] = bucketReply as [number, string];
      const taken = (leaseReply as [number, string])[0] === 1;
      if (admitted === 1 && taken) {
        const lease = new RedisLease(this.returns, leaseKey, String(leaseArgs[1]));
        return { ...bucketRecord(true, Number(levelMs), period, capacity, slots), lease };
      }
      // Undone at once, not with the turn's returns: the refusal is answered only after Redis has it.
      if (taken) this.redis.zrem(leaseKey, String(leaseArgs[1])).catch(ignore);
      if (admitted !== 1) return bucketRecord(false, Number(levelMs), period, capacity, slots);
      const charged = (period / capacity) * slots;
      await this.deadline(runScript(this.redis, REFUND, [key], [charged])).catch(ignore);
      const record: AdmitRecord = bucketRecord(true, Math.max(0, Number(levelMs) - charged), period, capacity, slots);
      record.overCap = true;
      return record;
    });
  }

  private decision(
    reply: Promise<unknown>,
    period: number,
    capacity: number,
    cost: number,
    lease?: Lease,
  ): Promise<AdmitRecord> {
    const decided = this.deadline(reply);
    if (lease !== undefined) this.returnIfLate(decided, reply, lease);
    return decided.then((answer): AdmitRecord => {
      const [outcome, levelMs] = answer as [number, string];
      const record: AdmitRecord = bucketRecord(outcome !== 0, Number(levelMs), period, capacity, cost);
      if (outcome === 2) record.overCap = true;
      else if (outcome === 1 && lease !== undefined) record.lease = lease;
      return record;
    });
  }

  /**
   * A lease whose answer missed the deadline was never handed to the request (the breaker answered it from
   * memory), yet Redis may still take it when the script runs late: returned as soon as that late answer says so,
   * rather than left to lapse.
   */
  private returnIfLate(decided: Promise<unknown>, reply: Promise<unknown>, lease: Lease): void {
    decided.catch(() =>
      reply.then((answer) => {
        if ((answer as [number])[0] === 1) lease.release();
      }, ignore),
    );
  }
}
