import type { Principal } from '../../../access/rules/principal';

/**
 * What is remembered about a credential already looked up, keyed by the header value itself: a Map lookup on
 * the string is far cheaper than hashing it on every request, and the digest the rate limiter needs is kept
 * in the entry (`tokenHash`, the first 16 hex characters of its SHA-256).
 */
export type CachedCredential =
  | {
      status: 'valid';
      principal: Principal;
      issuedAtMs: number;
      expiresAtMs: number;
      freshUntilMs: number;
      tokenHash: string;
    }
  | { status: 'blacklisted' | 'not_found'; freshUntilMs: number };

/**
 * How long a verified credential past its freshness is kept to answer with should the database not answer
 * (docs/contract.md: while PostgreSQL is down, a credential verified before keeps its normal answer). Revocation
 * notices evict such entries like any other.
 */
export const STALE_IF_ERROR_MS = 10 * 60_000;

/** Entries an insertion may drop for having outlived any use; bounds the work a look-up does for the cache. */
const SWEEP_PER_SET = 8;

/** When an entry can no longer answer anything, fresh or stale. */
function uselessAfterMs(entry: CachedCredential): number {
  return entry.status === 'valid' ? entry.freshUntilMs + STALE_IF_ERROR_MS : entry.freshUntilMs;
}

/**
 * Verified credentials, so a token already seen costs no database query. Entries go stale after a short time
 * (a safety net should a revocation notice be lost) and are evicted at once by revocation notices. Bounded
 * twice: each insertion drops the oldest entries that have outlived any use (Map order is insertion order, and
 * an entry's life starts when it is inserted), so the cache holds only credentials seen in the last
 * {@link STALE_IF_ERROR_MS} or so rather than every token ever issued; and the oldest entries go first when
 * full, so a flood of distinct tokens cannot grow memory.
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

  set(header: string, entry: CachedCredential, nowMs: number): void {
    this.sweep(nowMs);
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

  /**
   * Every entry stale as of now (revocation notices may have been missed): the next request looks its credential
   * up again, and a valid entry still answers while the database does not, never longer than it would have.
   */
  expireAll(nowMs: number): void {
    for (const [header, entry] of this.entries) {
      if (entry.freshUntilMs > nowMs) this.entries.set(header, { ...entry, freshUntilMs: nowMs });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(nowMs: number): void {
    for (let step = 0; step < SWEEP_PER_SET; step++) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined || uselessAfterMs(oldest[1]) > nowMs) return;
      this.entries.delete(oldest[0]);
    }
  }
}
