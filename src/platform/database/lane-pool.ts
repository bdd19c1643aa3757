import { Pool, type PoolClient } from 'pg';
import { inFirstLane } from './query-lane';

interface Pending {
  firstLane?: boolean;
}

/**
 * node-postgres' pool with the first lane of query-lane.ts: when every connection is busy, a checkout made in the
 * first lane (health, logout and revocations, logins) is queued after the other first-lane checkouts and before
 * every other one, so an overload of reads does not hold a logout behind all of them. pg-pool keeps one FIFO
 * queue (`_pendingQueue`, pg-pool 3) and no priority of its own; test/database-lanes.e2e-spec.ts fails if an
 * upgrade moves it.
 */
export class LanePool extends Pool {
  override connect(): Promise<PoolClient>;
  override connect(
    callback: (error: Error | undefined, client: PoolClient | undefined, done: () => void) => void,
  ): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override connect(callback?: any): any {
    const queue = inFirstLane() ? this.pendingQueue() : undefined;
    const before = queue?.length;
    const result = callback === undefined ? super.connect() : super.connect(callback);
    // Only a first-lane checkout that was queued moves (not one outside the lane, nor on a pg-pool without the
    // queue this knows, nor one a free connection served).
    if (Array.isArray(queue) && queue.length === before! + 1) {
      const pending = queue.pop()!;
      pending.firstLane = true;
      const behindFirstLane = queue.findIndex((item) => item.firstLane !== true);
      queue.splice(behindFirstLane === -1 ? queue.length : behindFirstLane, 0, pending);
    }
    return result;
  }

  /** pg-pool's queue of checkouts waiting for a connection. */
  private pendingQueue(): Pending[] | undefined {
    return (this as unknown as { _pendingQueue?: Pending[] })._pendingQueue;
  }
}
