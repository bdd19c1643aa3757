import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/common/errors/api-error';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { AppConfig } from '../../platform/config/app-config';
import {
  type AdmitRecord,
  type BucketStorage,
  type LeaseAsk,
  RATE_LIMIT_STORAGE,
} from '../../platform/counters/rate-limit-storage';
import type { OverrideRule } from '../overrides/override-table';
import { RateLimitOverrides } from '../overrides/rate-limit-overrides';
import type { QuotaTaken } from '../quotas/quota-table';
import { RateLimitQuotas } from '../quotas/rate-limit-quotas';
import { LimitedCredentials } from './limited-credentials';
import { NO_CREDENTIAL, RateLimitCredentials } from '../../access/rules/rate-limit-credentials';
import { concurrencyFields, holdUntilClosed, leaseAsk } from './concurrency-cap';
import { counterKey, rateLimitIdentifier } from './rate-limit-key';
import { setRateLimitHeaders } from './rate-limit-response-headers';
import { policyName, RATE_LIMIT_PERIOD_MS, RateLimitPolicy, type RouteLimits } from './rate-limit.policy';

/**
 * The request rate limit (source §8): the route's group, capacity and exemption come from its plan (compiled at
 * start, RateLimitPolicy), the counting from a ThrottlerStorage (@nestjs/throttler's contract; CountersModule's
 * memory or Redis buckets). The first step of the one global guard (RequestGuard), so every request counts, those that then
 * fail authentication included.
 *
 * It runs before authentication and never looks inside it: it asks {@link RateLimitCredentials} what memory
 * knows of the header. Its one branch:
 * - Known (valid, or known not to be: none, malformed, revoked, expired): counted on its counter (its token
 *   hash, or `-`); a 429 costs no look-up and no database query.
 * - First sight ({@link firstSight}): a JWT carrying our valid signature is looked up first, then counted on
 *   its own counter, so a client's first request with a new login is never charged to, or refused by, its `-`
 *   counter; anything else (an API key not seen yet) is counted on the client's `-` counter first, and only a
 *   request that counter admits has its key looked up (and, if valid, is counted on the key's counter too). A
 *   flood of made-up API keys from one client therefore costs at most the `-` bucket's capacity, then its drain
 *   rate, of look-ups, and its 429s cost none.
 *
 * An operator's override (src/rate-limiting/overrides/) applies to a credential memory knows to be valid: its
 * capacity replaces the table's (`enforce`), or is only measured against (`shadow`: the table decides, and a
 * request the override would refuse is counted as `shadow_limited` and logged). A first sight uses the table.
 *
 * Beyond the bucket (docs/contract.md): a route's cost takes that many slots of its bucket, and the concurrency
 * cap holds each credential (without one: each client IP) to CONCURRENCY_LIMIT requests in flight. The lease
 * is taken by the same storage call as the bucket's slots (one Redis round trip) and returned when the answer
 * closes ({@link holdUntilClosed}).
 *
 * An operator's quota (src/rate-limiting/quotas/) is one more step of the same decision, for a credential whose
 * owner is known: its count starts beside the bucket's (never after it), and a request the bucket admits is then
 * refused if a quota is used up ({@link withQuotas}).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: BucketStorage,
    private readonly policy: RateLimitPolicy,
    private readonly credentials: RateLimitCredentials,
    private readonly metrics: AppMetrics,
    private readonly overrides: RateLimitOverrides,
    private readonly limited: LimitedCredentials,
    private readonly quotas: RateLimitQuotas,
    config: AppConfig,
  ) {
    this.cap = config.concurrencyLimit;
  }

  private readonly cap: number;

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.policy.route(context.getHandler(), context.getClass());
    if (route.skip) return true;
    // The request and reply are arguments 0 and 1; switchToHttp() would allocate three closures per call.
    const request = context.getArgByIndex<FastifyRequest>(0);
    const reply = context.getArgByIndex<FastifyReply>(1);
    const limit = this.policy.limitFor(request.method, route);
    const known = this.credentials.knownTokenHash(request);
    if (known === undefined) return this.firstSight(request, reply, route, limit);
    const identifier = rateLimitIdentifier(request, route.group, known);
    const lease = leaseAsk(request.ip, known, this.cap);
    // No quota anywhere (nearly always): one property read; else counted beside the bucket, in the same turn.
    const taken = known !== NO_CREDENTIAL && this.quotas.any ? this.takeQuotas(request, route.group) : undefined;
    // No override anywhere (nearly always): one property read, nothing else.
    const override = known !== NO_CREDENTIAL && this.overrides.any ? this.overrideFor(request, route) : undefined;
    if (override !== undefined) {
      const overridden = this.countOverridden(request, reply, route, identifier, limit, override, lease);
      return this.withQuotas(reply, overridden, taken);
    }
    const decided = this.count(identifier, limit, route.cost, lease).then((record) =>
      this.answer(request, reply, route, identifier, limit, record),
    );
    return taken === undefined ? decided : this.withQuotas(reply, decided, taken);
  }

  /** The quotas of a credential memory knows, counted now; `undefined` when none applies. */
  private takeQuotas(request: FastifyRequest, group: string): Promise<QuotaTaken[]> | undefined {
    const owner = this.credentials.knownOwner(request);
    return owner === undefined ? undefined : this.quotas.take(owner, group);
  }

  /**
   * The bucket's decision, then the quotas': their IETF items join the bucket's on every counted answer (a 429
   * included), and a request the bucket admitted is refused when a quota is used up. Both counts were started
   * before this waits for either.
   */
  private async withQuotas(
    reply: FastifyReply,
    decided: Promise<boolean>,
    taken: Promise<QuotaTaken[]> | undefined,
  ): Promise<boolean> {
    if (taken === undefined) return decided;
    const [outcome, quotas] = await Promise.all([
      decided.then(
        (ok) => ({ ok }),
        (error: unknown) => ({ error }),
      ),
      taken,
    ]);
    this.quotas.describe(reply, quotas);
    if ('error' in outcome) throw outcome.error;
    this.quotas.enforce(quotas);
    return outcome.ok;
  }

  /** The operator's override for this credential's company or API key on this method × group, from memory. */
  private overrideFor(request: FastifyRequest, route: RouteLimits): OverrideRule | undefined {
    const owner = this.credentials.knownOwner(request);
    if (owner === undefined) return undefined;
    const apiKeyId = owner.kind === 'api_key' ? owner.credentialId : null;
    return this.overrides.lookup(owner.companyId, apiKeyId, request.method, route.group);
  }

  private async countOverridden(
    request: FastifyRequest,
    reply: FastifyReply,
    route: RouteLimits,
    identifier: string,
    limit: number,
    override: OverrideRule,
    lease: LeaseAsk,
  ): Promise<boolean> {
    if (override.mode === 'enforce') {
      const record = await this.count(identifier, override.limit, route.cost, lease);
      return this.answer(request, reply, route, identifier, override.limit, record);
    }
    // Shadow: the table decides; the bucket's level says whether the override's capacity would have held.
    const record = await this.count(identifier, limit, route.cost, lease);
    const shadowLimited = !record.isBlocked && record.totalHits > override.limit;
    if (shadowLimited) this.overrides.shadowLimited(identifier, override);
    return this.answer(request, reply, route, identifier, limit, record, shadowLimited);
  }

  /** A refusal of a credential memory knows to be valid, for the administration page (a request with none: not). */
  private noteLimited(request: FastifyRequest, route: RouteLimits, refused: boolean): void {
    const owner = this.credentials.knownOwner(request);
    if (owner !== undefined)
      this.limited.note(owner, request.method, route.group, refused ? 'limited' : 'shadow_limited');
  }

  /** A credential memory cannot judge yet: see the class comment for who pays for its look-up. */
  private async firstSight(
    request: FastifyRequest,
    reply: FastifyReply,
    route: RouteLimits,
    limit: number,
  ): Promise<boolean> {
    const { group, cost } = route;
    let tokenHash = NO_CREDENTIAL;
    if (this.credentials.vouchedFor(request)) tokenHash = await this.credentials.tokenHash(request);
    let identifier = rateLimitIdentifier(request, group, tokenHash);
    // The owner is known once the credential has been looked up: its quotas count beside its own bucket.
    let taken = this.quotas.any ? this.takeQuotas(request, group) : undefined;
    let record = await this.count(identifier, limit, cost, leaseAsk(request.ip, tokenHash, this.cap));
    if (!record.isBlocked && !record.overCap && tokenHash === NO_CREDENTIAL) {
      const own = await this.credentials.tokenHash(request);
      if (own !== NO_CREDENTIAL) {
        // A valid key: its own bucket and its own leases, not the client IP's (whose lease goes back).
        record.lease?.release();
        identifier = rateLimitIdentifier(request, group, own);
        taken = this.quotas.any ? this.takeQuotas(request, group) : undefined;
        record = await this.count(identifier, limit, cost, leaseAsk(request.ip, own, this.cap));
      }
    }
    const decided = new Promise<boolean>((resolve) =>
      resolve(this.answer(request, reply, route, identifier, limit, record)),
    );
    return this.withQuotas(reply, decided, taken);
  }

  private count(identifier: string, limit: number, cost: number, lease: LeaseAsk): Promise<AdmitRecord> {
    return this.counters.admit(counterKey(identifier), RATE_LIMIT_PERIOD_MS, limit, cost, lease);
  }

  /** The headers every counted request carries, the decision's metric, and the 429 when over the limit. */
  private answer(
    request: FastifyRequest,
    reply: FastifyReply,
    route: RouteLimits,
    identifier: string,
    limit: number,
    record: AdmitRecord,
    shadowLimited = false,
  ): true {
    // First, so that nothing below (a 429 included) can keep the lease: it goes back when the answer closes.
    if (record.lease !== undefined) holdUntilClosed(reply, record.lease);
    // While Redis is away the storage applies this instance's share of the limit; the headers show that one.
    const applied = record.limit ?? limit;
    // The route's own method at its own capacity (nearly every request) reuses the fields its plan serialized.
    const own = request.method === route.method && applied === route.capacity;
    setRateLimitHeaders(reply, {
      applied,
      used: record.totalHits,
      secondsToEmpty: record.timeToExpire,
      identifier,
      name: own ? route.name : policyName(request.method, route.group),
      item: own ? route.item : undefined,
      policy: own ? route.policy : undefined,
      also: record.overCap === true ? concurrencyFields(record.cap ?? this.cap) : undefined,
    });
    const refused = record.isBlocked || record.overCap === true;
    this.metrics.rateLimitDecision(identifier, refused, shadowLimited);
    if (refused || shadowLimited) this.noteLimited(request, route, refused);
    // Over the cap: one request in flight ends soon; the bucket's own wait does not apply (it was not charged).
    if (record.overCap === true) throw ApiError.requestRateLimited(1);
    if (record.isBlocked) throw ApiError.requestRateLimited(record.timeToBlockExpire || record.timeToExpire);
    return true;
  }
}
