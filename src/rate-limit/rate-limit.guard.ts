import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialService } from '../auth/credentials/credential.service';
import { ApiError } from '../common/errors/api-error';
import { RATE_LIMIT_WINDOW_MS, RateLimitPolicy } from './rate-limit.policy';
import type { RateLimitStorage } from './storage/rate-limit-storage';

export const LIMIT_HEADER = 'x-rate-limit-limit';
export const REMAINING_HEADER = 'x-rate-limit-remaining';
export const IDENTIFIER_HEADER = 'x-rate-limit-identifier';

/** Storage key of a counter; the identifier itself carries no secret (only a token digest prefix). */
export const counterKey = (identifier: string) => `req:${identifier}`;

/**
 * The request rate limit (source §8): one counter per client IP, method, API group and token hash, 3-second
 * windows, limits per method and group. It runs before authentication, so requests that fail it are counted
 * too; a credential that does not verify is counted under the token hash `-`, so inventing a new token for
 * each request does not buy a new counter.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly counters: RateLimitStorage,
    reflector: Reflector,
    private readonly policy: RateLimitPolicy,
    private readonly credentials: CredentialService,
  ) {
    super(options, counters, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const handler = context.getHandler();
    const controller = context.getClass();
    const route = this.policy.route(handler, controller);
    if (route.skip) return true;
    const method = context.switchToHttp().getRequest<FastifyRequest>().method;
    return this.handleRequest({
      context,
      limit: this.policy.limitFor(method, route),
      ttl: RATE_LIMIT_WINDOW_MS,
      blockDuration: 0,
      throttler: { name: 'default', limit: 0, ttl: RATE_LIMIT_WINDOW_MS },
      getTracker: () => this.identifierOf(context.switchToHttp().getRequest<FastifyRequest>(), route.group),
      generateKey: (_context, tracker) => counterKey(tracker),
    });
  }

  protected override async handleRequest({ context, limit, ttl, getTracker, generateKey }: ThrottlerRequest) {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const identifier = await getTracker(request, context);
    const record = await this.counters.increment(generateKey(context, identifier, 'default'), ttl, limit, 0, 'default');
    reply.header(LIMIT_HEADER, limit);
    reply.header(REMAINING_HEADER, Math.max(0, limit - record.totalHits));
    reply.header(IDENTIFIER_HEADER, identifier);
    if (record.isBlocked) throw ApiError.requestRateLimited(record.timeToBlockExpire || record.timeToExpire);
    return true;
  }

  /** `{ip}|{METHOD}|{group}|{token hash}` (contract.md), e.g. `203.0.113.7|GET|products|9f86d081884c7d65`. */
  async identifierOf(request: FastifyRequest, group: string): Promise<string> {
    const verdict = await this.credentials.resolve(request);
    const tokenHash = verdict.status === 'valid' ? verdict.tokenHash : '-';
    return `${request.ip}|${request.method}|${group}|${tokenHash}`;
  }
}
