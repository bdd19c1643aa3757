import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NO_CREDENTIAL, RateLimitCredentials } from '../../access/rules/rate-limit-credentials';
import { counterKey, rateLimitIdentifier } from './rate-limit-key';
import { LIMIT_HEADER, setRateLimitHeaders } from './rate-limit-response-headers';
import { policyName, RATE_LIMIT_PERIOD_MS, RateLimitPolicy } from './rate-limit.policy';
import { type BucketStorage, RATE_LIMIT_STORAGE } from '../../platform/counters/rate-limit-storage';

/**
 * Puts the rate-limit headers (X-Rate-Limit-*, RateLimit-Policy, RateLimit) on the `/v1` responses the guard
 * never saw: unknown routes (404) and bodies Fastify refused before any handler ran (malformed JSON, 413, 415).
 * Those requests are not counted; the headers show the state of the counter they would have used. Called from the one onSend hook
 * (bootstrap/request-hooks.ts).
 */
@Injectable()
export class RateLimitHeaders {
  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly credentials: RateLimitCredentials,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: BucketStorage,
  ) {}

  /** Undefined when there is nothing to add (nearly every response: the guard set them), so no promise is made. */
  fillIn(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
    if (reply.hasHeader(LIMIT_HEADER) || !request.url.startsWith('/v1/')) return undefined;
    return this.fillInFromCounter(request, reply);
  }

  private async fillInFromCounter(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The route pattern (`/v1/products/:id`) leads to its controller's group and limits; an unknown route has none.
    const pattern = request.routeOptions.url;
    const route = pattern === undefined ? undefined : this.policy.routeForPattern(request.method, pattern);
    const group = route?.group ?? pattern?.split('/')[2] ?? '-';
    const limit = route ? this.policy.limitFor(request.method, route) : this.policy.defaultLimit(request.method);
    // Memory only: a request that never reached a handler does not pay for a credential look-up.
    const identifier = rateLimitIdentifier(request, group, this.credentials.knownTokenHash(request) ?? NO_CREDENTIAL);
    const record = await this.counters.peek(counterKey(identifier), RATE_LIMIT_PERIOD_MS, limit).catch(() => null);
    setRateLimitHeaders(reply, {
      applied: record?.limit ?? limit,
      used: record?.totalHits ?? 0,
      secondsToEmpty: record?.timeToExpire ?? 0,
      identifier,
      name: policyName(request.method, group),
    });
  }
}
