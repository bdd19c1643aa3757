import type { Principal } from './principal';

/** What is remembered about a credential already looked up, keyed by the SHA-256 of the header value. */
export type CachedCredential =
  | { status: 'valid'; principal: Principal; expiresAtMs: number; freshUntilMs: number }
  | { status: 'blacklisted' | 'not_found'; freshUntilMs: number };

/**
 * Verified credentials, so a token already seen costs no database query. Entries go stale after a short time
 * (a safety net should a revocation notice be lost) and are evicted at once by revocation notices. Bounded:
 * the oldest entries go first when full, so a flood of distinct tokens cannot grow memory.
 */
export class CredentialCache {
  private readonly entries = new Map<string, CachedCredential>();

  constructor(private readonly maxEntries = 100_000) {}

  get(hash: string, nowMs: number): CachedCredential | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined) return undefined;
    if (entry.freshUntilMs <= nowMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  set(hash: string, entry: CachedCredential): void {
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, entry);
  }

  /** Drops every entry the predicate matches; revocations are rare, so a scan is cheaper than indexes. */
  evictWhere(matches: (principal: Principal) => boolean): number {
    let evicted = 0;
    for (const [hash, entry] of this.entries) {
      if (entry.status === 'valid' && matches(entry.principal)) {
        this.entries.delete(hash);
        evicted++;
      }
    }
    return evicted;
  }

  evict(hash: string): void {
    this.entries.delete(hash);
  }

  get size(): number {
    return this.entries.size;
  }
}
