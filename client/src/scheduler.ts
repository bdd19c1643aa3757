import type { Clock } from './clock';
import { CredentialGate, DEFAULT_CONCURRENCY } from './credential-gate';
import { type BucketInfo, type ConcurrencyInfo, DEFAULT_WINDOW_MS } from './rate-limit-headers';

/** A granted turn to send one request on one bucket; give it back with what the answer said. */
export interface Permit {
  readonly key: string;
  /** When the request was let go, on the client's clock. */
  readonly sentAt: number;
  /**
   * The request ended. A refusal by the concurrency cap (`concurrency.refused`) gives back the bucket slot the
   * request took in the model (the server did not charge the bucket) and pauses the credential's gate.
   */
  release(answer?: BucketInfo, concurrency?: ConcurrencyInfo): void;
}

interface Waiter {
  grant: (permit: Permit) => void;
  reject: (reason: unknown) => void;
  gate: CredentialGate;
  first: boolean;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * One bucket as the client models it: the server's leaky bucket (GCRA) mirrored with the capacity it announced,
 * so requests leave at the rate the bucket admits them instead of being refused and retried.
 */
class Bucket {
  /** Announced by the server; until then one request at a time finds it out. */
  capacity?: number;
  windowMs = DEFAULT_WINDOW_MS;
  /** Theoretical arrival time: when the bucket, as far as the client knows, is empty again. */
  tat = 0;
  inFlight = 0;
  readonly queue: Waiter[] = [];
  wakeAt?: number;
}

/**
 * Lets requests go per method × group (the key) so that the server refuses as few as possible:
 * - at most `capacity` of one key in flight at once (the capacity the server announced; one before it has);
 * - no faster than the bucket drains: `capacity` at once, then one every `window / capacity` (the source's §8:
 *   30 GETs, then one every 100 ms), corrected by every answer's remaining count and every refusal;
 * - at most the concurrency cap of one credential in flight at once, whatever the key (the service's
 *   `CONCURRENCY_LIMIT`: `concurrency`, 20 by default, until a refusal by the cap announces the real one), see
 *   {@link CredentialGate};
 * - first come, first served, except that a request retried after a 429 goes before the others.
 */
export class RateLimitScheduler {
  private readonly buckets = new Map<string, Bucket>();
  private readonly gates = new Map<string, CredentialGate>();

  constructor(
    private readonly clock: Clock,
    private readonly concurrency = DEFAULT_CONCURRENCY,
  ) {}

  /**
   * Waits for a turn on `key` for `credential` (the name of whatever the request authenticates with: one gate
   * each); rejects with the signal's reason if it aborts first (the turn is not taken).
   */
  acquire(key: string, signal?: AbortSignal, first = false, credential = '-'): Promise<Permit> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const bucket = this.bucket(key);
    const gate = this.gate(credential);
    return new Promise<Permit>((grant, reject) => {
      const waiter: Waiter = { grant, reject, gate, first, signal };
      if (signal) {
        waiter.onAbort = () => {
          const index = bucket.queue.indexOf(waiter);
          if (index >= 0) bucket.queue.splice(index, 1);
          reject(signal.reason);
          this.pump(key, bucket);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      if (first) bucket.queue.unshift(waiter);
      else bucket.queue.push(waiter);
      this.pump(key, bucket);
    });
  }

  /** What the client currently assumes of `key` (for tests and diagnostics). */
  describe(key: string): { capacity?: number; windowMs: number; inFlight: number; waiting: number } {
    const { capacity, windowMs, inFlight, queue } = this.bucket(key);
    return { capacity, windowMs, inFlight, waiting: queue.length };
  }

  /** What the client currently assumes of `credential`'s concurrency cap (for tests and diagnostics). */
  describeCredential(credential = '-'): { limit: number; learned: boolean; inFlight: number } {
    const { limit, learned, inFlight } = this.gate(credential);
    return { limit, learned, inFlight };
  }

  private gate(credential: string): CredentialGate {
    let gate = this.gates.get(credential);
    if (!gate) this.gates.set(credential, (gate = new CredentialGate(this.concurrency)));
    return gate;
  }

  private bucket(key: string): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new Bucket()));
    return bucket;
  }

  private pump(key: string, bucket: Bucket): void {
    while (bucket.queue.length > 0) {
      const now = this.clock.now();
      const { gate, first } = bucket.queue[0];
      // Checked before the bucket, so that a request held back by its credential's cap charges no slot.
      if (!gate.open(now)) return this.holdAtGate(key, gate, first, now);
      let charged = 0;
      if (bucket.capacity === undefined) {
        if (bucket.inFlight > 0) return; // the first answer will announce the capacity
      } else {
        if (bucket.inFlight >= bucket.capacity) return; // a release pumps again
        const interval = bucket.windowMs / bucket.capacity;
        // GCRA: the request fits when the bucket, with it added, holds no more than the capacity.
        const fitsAt = bucket.tat - (bucket.windowMs - interval);
        if (fitsAt > now) return this.wakeAt(key, bucket, fitsAt);
        bucket.tat = Math.max(bucket.tat, now) + interval;
        charged = interval;
      }
      const waiter = bucket.queue.shift()!;
      if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
      bucket.inFlight++;
      gate.take(now);
      waiter.grant(this.permit(key, bucket, gate, now, charged));
    }
  }

  private permit(key: string, bucket: Bucket, gate: CredentialGate, sentAt: number, charged: number): Permit {
    let released = false;
    return {
      key,
      sentAt,
      release: (answer, concurrency) => {
        if (released) return;
        released = true;
        const now = this.clock.now();
        bucket.inFlight--;
        const refused = concurrency?.refused === true;
        gate.release(now, refused);
        if (refused) {
          // The server left the bucket as it was: so does the model (the answer's remaining count says so too).
          bucket.tat -= charged;
          gate.refuse(now, concurrency.cap, concurrency.retryAfterMs ?? 0);
        } else if (concurrency?.cap !== undefined) gate.learn(concurrency.cap);
        if (answer?.capacity !== undefined) this.learn(bucket, sentAt, answer);
        this.pump(key, bucket);
        this.pumpGate(gate);
      },
    };
  }

  /** `key`'s next request waits for `gate`: served again when one of the credential's requests ends or the pause does. */
  private holdAtGate(key: string, gate: CredentialGate, first: boolean, now: number): void {
    gate.hold(key, first);
    if (gate.inFlight >= gate.limit || gate.wakeAt === gate.pausedUntil) return;
    const at = gate.pausedUntil;
    gate.wakeAt = at;
    void this.clock.sleep(at - now).then(() => {
      if (gate.wakeAt === at) gate.wakeAt = undefined;
      this.pumpGate(gate);
    });
  }

  /** Serves the buckets waiting for `gate`, in their order; those still held back are noted again. */
  private pumpGate(gate: CredentialGate): void {
    for (const key of gate.blocked.splice(0)) {
      const bucket = this.buckets.get(key);
      if (bucket) this.pump(key, bucket);
    }
  }

  /**
   * Takes in what an answer said. The bucket can only be fuller than the client thought (another process with
   * the same credential, a refusal, a lower limit), never emptier: the remaining count moves the model later only.
   */
  private learn(bucket: Bucket, sentAt: number, answer: BucketInfo): void {
    bucket.capacity = answer.capacity;
    bucket.windowMs = answer.windowMs;
    if (answer.remaining === undefined) return;
    const interval = bucket.windowMs / answer.capacity!;
    const used = Math.max(0, answer.capacity! - answer.remaining);
    bucket.tat = Math.max(bucket.tat, sentAt + used * interval);
  }

  private wakeAt(key: string, bucket: Bucket, at: number): void {
    if (bucket.wakeAt !== undefined && bucket.wakeAt <= at) return;
    bucket.wakeAt = at;
    void this.clock.sleep(at - this.clock.now()).then(() => {
      if (bucket.wakeAt === at) bucket.wakeAt = undefined;
      this.pump(key, bucket);
    });
  }
}
