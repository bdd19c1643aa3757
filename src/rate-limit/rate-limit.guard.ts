import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/api-error';
import { AppMetrics } from '../common/metrics/app-metrics';
import { RateLimitCredentials } from './rate-limit-credentials';
import { rateLimitIdentifier } from './rate-limit-key';
import { GENERAL, type Plan, resolvePlan, SKIPPED } from './rate-limit-plan';
import { setRateLimitHeaders } from './rate-limit-response-headers';
import { NO_CREDENTIAL_SUFFIX } from './rate-limit-tracker';
import { RateLimitPolicy } from './rate-limit.policy';
import type { RateLimitRecord, RateLimitStorage } from '../counters/rate-limit-storage';

const ADMITTED = Promise.resolve(true);

/** A throttler option resolved for this request; ours are numbers or synchronous functions of the context. */
function valueNow(value: ThrottlerOptions['limit'], context: ExecutionContext): number {
  const resolved = typeof value === 'function' ? value(context) : value;
  if (typeof resolved !== 'number') throw new Error('rate-limit throttler options must resolve synchronously');
  return resolved;
}

/**
 * The request rate limit (source §8) as a @nestjs/throttler guard: it runs the one throttler RateLimitModule
 * configures (3-second drain period, per-route limit resolver, tracker, key) through the framework's hooks:
 * {@link shouldSkip} (`@NoRateLimit()`), the `getTracker` option ({@link memoryTracker}), {@link handleRequest}
 * (the two-step count below and our headers) and {@link throwThrottlingException} (our 429 body).
 *
 * It runs before authentication and never looks inside it: it asks {@link RateLimitCredentials} what memory
 * knows of the header.
 * - Known (valid, or known not to be: none, malformed, revoked, expired): counted on its counter (its token
 *   hash, or `-`); a 429 costs no look-up and no database query.
 * - Unknown but vouched for (a JWT carrying our valid signature): looked up first, then counted on its own
 *   counter, so a client's first request with a new login is never charged to, or refused by, its `-` counter.
 *   Invented JWTs fail the signature in memory; only tokens this service signed can cost a look-up.
 * - Unknown and not vouched for (an API key not seen yet): counted on the client's `-` counter first; only a
 *   request that counter still admits has its key looked up (and, if valid, is counted on the key's counter
 *   too). A flood of made-up API keys from one client therefore costs at most the `-` bucket's capacity, then its drain rate, of
 *   look-ups, and its 429s cost none.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly counters: RateLimitStorage,
    reflector: Reflector,
    private readonly policy: RateLimitPolicy,
    private readonly credentials: RateLimitCredentials,
    private readonly metrics: AppMetrics,
  ) {
    super(options, counters, reflector);
  }

  /**
   * The general path (a first sight, settings that vary per request): runs the throttlers RateLimitModule
   * configures, with their own options (limit resolver, ttl, blockDuration,
   * getTracker, generateKey). It does what ThrottlerGuard.canActivate does minus reading `@Throttle()` /
   * `@SkipThrottle()` metadata: this service declares limits with `@RateLimit()` only, and those six reflector
   * look-ups per request (prototype-chain walks for absent keys) cost more than the rest of the guard together.
   */
  private throttle(context: ExecutionContext): Promise<boolean> {
    if (this.skips(context)) return ADMITTED;
    const throttler = this.throttlers[0];
    const ttl = valueNow(throttler.ttl, context);
    return this.handleRequest({
      context,
      limit: valueNow(throttler.limit, context),
      ttl,
      blockDuration: valueNow(throttler.blockDuration ?? ttl, context),
      throttler,
      getTracker: throttler.getTracker ?? this.commonOptions.getTracker!,
      generateKey: throttler.generateKey ?? this.commonOptions.generateKey!,
    });
  }

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    // canActivate runs exactly one throttler; more would be silently ignored, so refuse them at start.
    if (this.throttlers.length !== 1) throw new Error('RateLimitGuard expects exactly one throttler');
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.skips(context);
  }

  private skips(context: ExecutionContext): boolean {
    return context.getType() !== 'http' || this.policy.route(context.getHandler(), context.getClass()).skip;
  }

  /**
   * ThrottlerGuard's own `canActivate` works the same settings out on every request (six metadata reads, five
   * awaited values, then {@link handleRequest} with more awaits). This one takes the same decision with what
   * cannot change resolved once per route, when the tracker gives the identifier at once (the credential is
   * already judged): synchronously with counters in process memory, after the one round trip with Redis. A
   * credential seen for the first time, or a route with settings that vary per request, takes the general path
   * ({@link throttle}).
   */
  override canActivate(context: ExecutionContext): Promise<boolean> {
    // Nest's guards consumer uses a boolean as it is and awaits only promises (CanActivate allows both);
    // ThrottlerGuard's typings say Promise, so the synchronous answer passes through that declaration.
    return this.decide(context) as Promise<boolean>;
  }

  private decide(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const plan = this.planOf(context.getHandler(), context.getClass());
    if (plan === SKIPPED) return true;
    if (plan === GENERAL) return this.throttle(context);
    const limit = typeof plan.limit === 'function' ? plan.limit(context) : plan.limit;
    const request = context.getArgByIndex<FastifyRequest>(0);
    const identifier = plan.getTracker(request, context);
    if (typeof limit !== 'number' || typeof identifier !== 'string' || this.unjudged(identifier, request)) {
      return this.throttle(context);
    }
    const key = plan.generateKey(context, identifier, plan.name);
    const reply = context.getArgByIndex<FastifyReply>(1);
    if (this.counters.incrementNow !== undefined) {
      this.answer(reply, identifier, limit, this.counters.incrementNow(key, plan.ttl, limit, plan.blockDuration));
      return true;
    }
    // Shared counters (Redis): one round trip, and nothing else to wait for.
    return this.counters.increment(key, plan.ttl, limit, plan.blockDuration, plan.name).then((record) => {
      this.answer(reply, identifier, limit, record);
      return true;
    });
  }

  private readonly plans = new WeakMap<Function, Plan>();

  private planOf(handler: Function, controller: Function): Plan {
    let plan = this.plans.get(handler);
    if (plan === undefined) {
      plan = this.policy.route(handler, controller).skip ? SKIPPED : resolvePlan(this.throttlers, this.commonOptions);
      this.plans.set(handler, plan);
    }
    return plan;
  }

  /** Memory could not judge the credential (first sight): the framework's path decides who pays the look-up. */
  private unjudged(identifier: string, request: FastifyRequest): boolean {
    return identifier.endsWith(NO_CREDENTIAL_SUFFIX) && this.credentials.knownTokenHash(request) === undefined;
  }

  /** The headers every counted request carries, the decision's metric, and the 429 when over the limit. */
  private answer(reply: FastifyReply, identifier: string, limit: number, record: RateLimitRecord): void {
    // While Redis is away the storage applies this instance's share of the limit; the headers show that one.
    setRateLimitHeaders(reply, record.limit ?? limit, record.totalHits, identifier);
    this.metrics.rateLimitDecision(identifier, record.isBlocked);
    if (record.isBlocked) throw ApiError.requestRateLimited(record.timeToBlockExpire || record.timeToExpire);
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = props;
    const request = context.getArgByIndex<FastifyRequest>(0);
    const count = (identifier: string) =>
      this.counters.increment(
        generateKey(context, identifier, throttler.name!),
        ttl,
        limit,
        blockDuration,
        throttler.name!,
      );
    const tracked = getTracker(request, context);
    let identifier = typeof tracked === 'string' ? tracked : await tracked;
    // Memory could not judge the credential (first sight): see the class comment for who pays for its look-up.
    const unjudged = this.unjudged(identifier, request);
    if (unjudged && this.credentials.vouchedFor(request)) identifier = await this.lookedUp(request, context);
    let record = await count(identifier);
    if (unjudged && !record.isBlocked && identifier.endsWith(NO_CREDENTIAL_SUFFIX)) {
      const own = await this.lookedUp(request, context);
      if (own !== identifier) {
        identifier = own;
        record = await count(identifier);
      }
    }
    this.answer(context.getArgByIndex<FastifyReply>(1), identifier, limit, record);
    return true;
  }

  private async lookedUp(request: FastifyRequest, context: ExecutionContext): Promise<string> {
    const { group } = this.policy.route(context.getHandler(), context.getClass());
    return rateLimitIdentifier(request, group, await this.credentials.tokenHash(request));
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw ApiError.requestRateLimited(detail.timeToBlockExpire || detail.timeToExpire);
  }
}
