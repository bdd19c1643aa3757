import type { FastifyReply } from 'fastify';
import { serializeList } from 'structured-headers';
import { NO_CREDENTIAL } from '../../access/rules/rate-limit-credentials';
import type { Lease, LeaseAsk } from '../../platform/counters/rate-limit-storage';

/** The IETF policy name of the concurrency cap (docs/contract.md, "Beyond the bucket"). */
export const CONCURRENCY_POLICY = 'concurrency';

/**
 * Whose leases a request takes: its credential's (the token hash names a JWT or an API key alike, whatever IP it
 * comes from), or, without one, its client IP's. The counters module's key: `cc:<token hash>` or `cc:ip:<ip>`.
 */
export const leaseAsk = (ip: string, tokenHash: string, cap: number): LeaseAsk => ({
  key: tokenHash === NO_CREDENTIAL ? `cc:ip:${ip}` : `cc:${tokenHash}`,
  cap,
});

/**
 * Returns the lease when the request ends, however it ends: the answer sent (a success, an error the filter
 * wrote, a timeout's 503), or the client gone first. Node's response emits `close` once in every one of those
 * cases; one listener per request. A response closed already (the client left while the guard waited for Redis)
 * returns it at once.
 */
export function holdUntilClosed(reply: FastifyReply, lease: Lease): void {
  const response = reply.raw;
  // `on`, not `once`: the event comes once anyway, the release counts once, and `once` would wrap it per request.
  if (response.closed) lease.release();
  else response.on('close', lease.release);
}

/**
 * The IETF fields of a refusal by the cap, appended to the bucket's: `"concurrency";q=<cap>` to
 * RateLimit-Policy, `"concurrency";r=0` to RateLimit (RFC 9651 Lists, one more member each).
 */
export function concurrencyFields(cap: number): { policy: string; state: string } {
  return {
    policy: serializeList([[CONCURRENCY_POLICY, new Map([['q', cap]])]]),
    state: serializeList([[CONCURRENCY_POLICY, new Map([['r', 0]])]]),
  };
}
