import type { RedisConnection } from '../redis-client/redis-connection';
import type { Lease } from './rate-limit-storage';

const ignore = (): void => undefined;

/**
 * How long a returned lease waits for its credential's next admission to carry it (see {@link LeaseReturns}):
 * under load that comes within a few milliseconds; otherwise the return goes by itself after this. Meanwhile
 * the other instances count it, this one never does (its next admission removes it before counting).
 */
export const RETURN_WAIT_MS = 5;
/** At most this many returns ride on one admission (its script's arguments); the rest go by themselves. */
const MAX_CARRIED = 200;

/**
 * Returned leases, sent back without a round trip of their own where possible: a lease returned when its request
 * ends waits here, and the credential's next admission carries it in its script (one round trip per decision,
 * docs/contract.md "Beyond the bucket"). What no admission took within {@link RETURN_WAIT_MS} goes back by one
 * `ZREM` per credential (fire and forget: if it fails, the members lapse).
 */
export class LeaseReturns {
  private pending = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly redis: RedisConnection) {}

  add(key: string, ...ids: string[]): void {
    const waiting = this.pending.get(key);
    if (waiting === undefined) this.pending.set(key, ids);
    else waiting.push(...ids);
    this.timer ??= setTimeout(this.flush, RETURN_WAIT_MS);
  }

  /** The returns waiting for `key`, taken out to ride on its admission. */
  carry(key: string): string[] {
    const waiting = this.pending.get(key);
    if (waiting === undefined) return [];
    if (waiting.length <= MAX_CARRIED) {
      this.pending.delete(key);
      return waiting;
    }
    return waiting.splice(0, MAX_CARRIED);
  }

  private readonly flush = (): void => {
    const pending = this.pending;
    this.pending = new Map();
    this.timer = undefined;
    for (const [key, ids] of pending) this.redis.zrem(key, ...ids).catch(ignore);
  };
}

/** A lease in Redis: returning it removes its member, by the credential's next admission or after the wait. */
export class RedisLease implements Lease {
  private returned = false;

  constructor(
    private readonly returns: LeaseReturns,
    private readonly key: string,
    private readonly id: string,
  ) {}

  readonly release = (): void => {
    if (this.returned) return;
    this.returned = true;
    this.returns.add(this.key, this.id);
  };
}
