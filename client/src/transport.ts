import type { Clock } from './clock';
import { quotaExhaustedMs, readBucket, readConcurrency, retryAfterMs } from './rate-limit-headers';
import type { RouteGroups } from './route-group';
import type { RateLimitScheduler } from './scheduler';
import { REFRESH_PENDING, type TokenSession } from './token-session';

/** How long one request may keep retrying 429s before its caller gets the 429. Unlimited unless set. */
export interface RetryBudget {
  /** Retries after a 429 (0: the first 429 is returned). */
  maxRetries?: number;
  /** Total time spent waiting out `Retry-After`; a wait that would go past it is not started. */
  maxWaitMs?: number;
}

/** Counts of what the client absorbed for its caller. */
export interface ClientStats {
  /** Requests put on the wire, retries included. */
  sent: number;
  /** 429 answers received (each one waited out and retried unless the budget ran out). */
  rateLimited: number;
}

export interface TransportParts {
  clock: Clock;
  scheduler: RateLimitScheduler;
  groups: RouteGroups;
  session: TokenSession;
  fetch: (request: Request) => Promise<Response>;
  budget: RetryBudget;
  stats: ClientStats;
}

/** The operations that take no credential (`security: []` in the OpenAPI document): no token is attached. */
const PUBLIC_PATHS = new Set([
  '/v1/users/authenticateinit',
  '/v1/users/authenticatefinish',
  '/v1/users/refreshtoken',
  '/v1/users/invitations/accept',
  '/v1/users/passwordreset',
]);

/**
 * The `fetch` openapi-fetch calls: every request waits for its turn on its method × group bucket, carries the
 * current token (raw, no "Bearer"), and is sent again
 * - after a 429, once `Retry-After` has passed (a refused request was not processed, so any method may be
 *   retried), until the retry budget runs out;
 * - once, after a refresh, when the server says `error_jwt_expired` (or `error_jwt_blacklisted` for a token a
 *   refresh has replaced meanwhile).
 * While a quota is used up (an answer's `"hour"` or `"day"` item with `r=0`), no request is sent until it frees
 * up, whatever its method × group, as far as the retry budget allows (beyond it, the server's 429 is returned).
 * A 429 of the concurrency cap (`"concurrency";r=0`) is retried, within the same budget, as soon as one of the
 * credential's requests in flight ends, or after `Retry-After` if none does first (the scheduler's gate holds
 * it, and the credential's other requests, until then); it charged no bucket.
 * Aborting the request's signal ends any of these waits at once.
 */
export function scheduledFetch(parts: TransportParts): (request: Request) => Promise<Response> {
  const { clock, scheduler, groups, session, budget, stats } = parts;
  const maxRetries = budget.maxRetries ?? Infinity;
  const maxWaitMs = budget.maxWaitMs ?? Infinity;
  /** When the used-up quota the server last reported frees up, on the client's clock. */
  let quotaUntil = 0;

  return async (request) => {
    const { method, url, signal } = request;
    const body = request.body ? await request.arrayBuffer() : undefined;
    const authenticate = !request.headers.has('authorization') && !PUBLIC_PATHS.has(new URL(url).pathname);
    // Whose concurrency cap the request counts against: the session's token, the caller's own credential, or
    // (none) the client's address.
    const credential = authenticate ? 'session' : (request.headers.get('authorization') ?? '-');
    let retries = 0;
    let waitedMs = 0;
    let refreshed = false;
    for (;;) {
      const holdMs = quotaUntil - clock.now();
      if (holdMs > 0 && retries < maxRetries && waitedMs + holdMs <= maxWaitMs) {
        waitedMs += holdMs;
        await clock.sleep(holdMs, signal);
      }
      if (authenticate) await session.ready(signal);
      const permit = await scheduler.acquire(groups.keyOf(method, url), signal, retries > 0, credential);
      const token = authenticate ? session.tokenNow() : undefined;
      if (token === REFRESH_PENDING) {
        permit.release();
        continue;
      }
      const headers = new Headers(request.headers);
      if (token) headers.set('authorization', token);
      const sent = token ? session.begin() : undefined;
      let response: Response;
      try {
        stats.sent++;
        response = await parts.fetch(new Request(url, { method, headers, body, signal }));
      } catch (error) {
        permit.release();
        throw error;
      } finally {
        sent?.();
      }
      const quotaMs = quotaExhaustedMs(response.headers);
      if (quotaMs !== undefined) quotaUntil = Math.max(quotaUntil, clock.now() + quotaMs);
      const bucket = readBucket(response.headers, method);
      groups.learn(method, url, bucket.group);
      const concurrency = readConcurrency(response.headers, response.status, clock.now());
      permit.release(bucket, concurrency);

      if (response.status === 429) {
        stats.rateLimited++;
        const waitMs = retryAfterMs(response.headers, clock.now());
        // A refusal by the cap may be over sooner (a request of the credential ends): its budget is its bound.
        if (retries >= maxRetries || waitedMs + waitMs > maxWaitMs) return response;
        retries++;
        waitedMs += waitMs;
        await response.body?.cancel();
        // Held by the credential's gate in the scheduler instead: until a request ends, or Retry-After.
        if (!concurrency.refused) await clock.sleep(waitMs, signal);
        continue;
      }
      if (token && response.status === 400 && !refreshed) {
        const code = await errorCode(response);
        // Expired: refresh once and send again. Blacklisted: only when a refresh replaced the token meanwhile.
        if (code === 'error_jwt_expired' || (code === 'error_jwt_blacklisted' && token !== session.result?.jwt)) {
          refreshed = true;
          if (await session.refresh(token).catch(() => false)) continue;
        }
      }
      return response;
    }
  };
}

async function errorCode(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: unknown };
    return Array.isArray(body?.error) && typeof body.error[0] === 'string' ? body.error[0] : undefined;
  } catch {
    return undefined;
  }
}
