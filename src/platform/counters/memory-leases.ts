import type { Lease } from './rate-limit-storage';

/**
 * The concurrency cap's leases in this process (docs/contract.md, "Beyond the bucket"): one number per
 * credential, the requests it has in flight here. No expiry is needed: a process that dies takes its leases with
 * it, and every request of a live one ends (the guard returns its lease on the answer's `close`).
 */
export class MemoryLeases {
  private readonly held = new Map<string, number>();

  /** Credentials holding at least one lease. */
  get size(): number {
    return this.held.size;
  }

  /** Leases held under `key`. */
  count(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** A lease under `key` if fewer than `cap` are held, else undefined. */
  take(key: string, cap: number): Lease | undefined {
    const held = this.held.get(key) ?? 0;
    if (held >= cap) return undefined;
    this.held.set(key, held + 1);
    return new MemoryLease(this, key);
  }

  /** @internal MemoryLease's way back. */
  give(key: string): void {
    const held = this.held.get(key) ?? 0;
    if (held <= 1) this.held.delete(key);
    else this.held.set(key, held - 1);
  }
}

class MemoryLease implements Lease {
  private returned = false;

  constructor(
    private readonly leases: MemoryLeases,
    private readonly key: string,
  ) {}

  readonly release = (): void => {
    if (this.returned) return;
    this.returned = true;
    this.leases.give(this.key);
  };
}
