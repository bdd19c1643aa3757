import type { Principal } from './principal';

/**
 * What is remembered about a credential already looked up, keyed by the header value itself: a Map lookup on
 * the string is far cheaper than hashing it on every request, and the digest the rate limiter needs is kept
 * in the entry (`tokenHash`, the first 16 hex characters of its SHA-256).
 */
export type CachedCredential =
  | { status: 'valid'; principal: Principal; expiresAtMs: number; freshUntilMs: number; tokenHash: string }
  | { status: 'blacklisted' | 'not_found'; freshUntilMs: number };

/**
 * How long a verified credential past its freshness is kept to answer with should the database not answer
 * (docs/contract.md: while PostgreSQL is down, a credential verified before keeps its normal answer). Revocation
 * notices evict such entries like any other.
 */
export const STALE_IF_ERROR_MS = 10 * 60_000;

/**
 * Verified credentials, so a token already seen costs no database query. Entries go stale after a short time
 * (a safety net should a revocation notice be lost) and are evicted at once by revocation notices. Bounded:
 * the oldest entries go first when full, so a flood of distinct tokens cannot grow memory.
 */
export class CredentialCache {
  private readonly entries = new Map<string, CachedCredential>();

  constructor(private readonly maxEntries = 100_000) {}

  get(header: string, nowMs: number): CachedCredential | undefined {
    const entry = this.entries.get(header);
    if (entry === undefined) return undefined;
    if (entry.freshUntilMs <= nowMs) {
      if (entry.status !== 'valid' || entry.freshUntilMs + STALE_IF_ERROR_MS <= nowMs) this.entries.delete(header);
      return undefined;
    }
    return entry;
  }

  /** A valid entry past its freshness but still within {@link STALE_IF_ERROR_MS}: the answer when a look-up fails. */
  getStale(header: string, nowMs: number): CachedCredential | undefined {
    const entry = this.entries.get(header);
    if (entry?.status !== 'valid' || entry.freshUntilMs + STALE_IF_ERROR_MS <= nowMs) return undefined;
    return entry;
  }

  set(header: string, entry: CachedCredential): void {
    this.entries.delete(header);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(header, entry);
  }

  /** Drops every entry the predicate matches; revocations are rare, so a scan is cheaper than indexes. */
  evictWhere(matches: (principal: Principal) => boolean): number {
    let evicted = 0;
    for (const [header, entry] of this.entries) {
      if (entry.status === 'valid' && matches(entry.principal)) {
        this.entries.delete(header);
        evicted++;
      }
    }
    return evicted;
  }

  get size(): number {
    return this.entries.size;
  }
}
