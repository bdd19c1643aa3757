/**
 * The service's default `CONCURRENCY_LIMIT` (docs/contract.md, "Beyond the bucket"): what the client assumes of
 * a credential until a refusal by the cap announces the real one.
 */
export const DEFAULT_CONCURRENCY = 20;

/**
 * The concurrency cap of one credential as the client models it: at most `limit` of its requests in flight,
 * whatever their method × group. After a refusal by the cap (someone else holds the credential's other leases:
 * another process with the same token, or a lower cap than assumed) the gate is paused until the refusal's
 * `Retry-After` has passed; meanwhile each of its own requests that ends frees one lease on the server, and lets
 * exactly one waiting request go.
 */
export class CredentialGate {
  inFlight = 0;
  /** Whether `limit` is the server's (a refusal's `"concurrency";q=`) rather than the assumed one. */
  learned = false;
  /** While the clock is before this, only `credits` requests may go. */
  pausedUntil = 0;
  /** Requests of this credential that ended during the pause: one waiting request may go for each. */
  credits = 0;
  /** Buckets whose next request waits for this gate, the one to serve first at the front. */
  readonly blocked: string[] = [];
  wakeAt?: number;

  constructor(public limit: number) {}

  /** Whether one more request may go now. */
  open(now: number): boolean {
    return this.inFlight < this.limit && (now >= this.pausedUntil || this.credits > 0);
  }

  take(now: number): void {
    this.inFlight++;
    if (now < this.pausedUntil) this.credits--;
  }

  /** A request ended; `refused` when the cap refused it (it held no lease on the server). */
  release(now: number, refused: boolean): void {
    this.inFlight--;
    if (!refused && now < this.pausedUntil) this.credits++;
  }

  /** A refusal by the cap: the announced cap (if any) replaces the assumed one, and the gate pauses. */
  refuse(now: number, cap: number | undefined, retryAfterMs: number): void {
    if (cap !== undefined) this.learn(cap);
    this.pausedUntil = Math.max(this.pausedUntil, now + retryAfterMs);
    this.credits = 0;
  }

  learn(cap: number): void {
    this.limit = cap;
    this.learned = true;
  }

  /** Notes that `key`'s next request waits for this gate; a retried request's bucket goes first. */
  hold(key: string, first: boolean): void {
    const index = this.blocked.indexOf(key);
    if (index >= 0) this.blocked.splice(index, 1);
    if (first) this.blocked.unshift(key);
    else this.blocked.push(key);
  }
}
