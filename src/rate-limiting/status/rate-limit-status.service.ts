import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthGuard } from '../../identity/auth/auth.guard';
import type { AuthRule } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { RoutePlans } from '../../platform/common/http/route-plan';
import { type BucketStorage, RATE_LIMIT_STORAGE } from '../../platform/counters/rate-limit-storage';
import { grants } from '../../access/permissions/permission';
import { RateLimitCredentials } from '../../access/rules/rate-limit-credentials';
import { RateLimitOverrides } from '../overrides/rate-limit-overrides';
import { RateLimitQuotas } from '../quotas/rate-limit-quotas';
import { quotaStates } from './quota-states';
import { counterKey, identifierOf } from '../limiter/rate-limit-key';
import { RATE_LIMIT_PERIOD_MS, RateLimitPolicy } from '../limiter/rate-limit.policy';
import type { RateLimitListDto, RateLimitStateDto, RouteCostDto } from './dto/rate-limit-list.dto';

/** A method × group the caller can call, and the bucket's capacity. */
export interface Bucket {
  method: string;
  group: string;
  capacity: number;
  /** The routes of the pair whose requests take more than one slot (`@RateLimit({ cost })`), by path. */
  costs: RouteCostDto[];
}

/** A pair's bucket and the access rules of the routes that count on it: callable when one of them admits. */
export interface PairRoutes {
  bucket: Bucket;
  rules: AuthRule[];
}

/**
 * `GET /v1/ratelimits` (docs/contract.md, "Rate limits a client can plan with"): the buckets of every method ×
 * group the credential can call, as they stand for this caller now. Which pairs: the routes of the compiled route
 * plans that the general limit counts and whose access rule this principal satisfies (the auth guard's own piece
 * of the plan, so the list cannot drift from what the guard admits). Their remaining room: a peek at the bucket
 * this caller's requests would be counted on (same ip and token hash), which counts nothing.
 */
@Injectable()
export class RateLimitStatusService {
  private pairs?: PairRoutes[];

  constructor(
    private readonly plans: RoutePlans,
    private readonly auth: AuthGuard,
    private readonly policy: RateLimitPolicy,
    private readonly credentials: RateLimitCredentials,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: BucketStorage,
    private readonly overrides: RateLimitOverrides,
    private readonly quotas: RateLimitQuotas,
  ) {}

  async list(request: FastifyRequest, principal: Principal): Promise<RateLimitListDto> {
    const tokenHash = await this.credentials.tokenHash(request);
    const apiKeyId = principal.kind === 'api_key' ? principal.credentialId : null;
    const callable = this.allBuckets().filter(({ rules }) => rules.some((rule) => allows(rule, principal)));
    const limits = await Promise.all(
      callable.map(async ({ bucket }): Promise<RateLimitStateDto> => {
        const key = counterKey(identifierOf(request.ip, bucket.method, bucket.group, tokenHash));
        // As the guard: an enforced override replaces the table's capacity, a shadow one only shows here.
        const override = this.overrides.lookup(principal.companyId, apiKeyId, bucket.method, bucket.group);
        const table = override?.mode === 'enforce' ? override.limit : bucket.capacity;
        const record = await this.counters.peek(key, RATE_LIMIT_PERIOD_MS, table);
        // While Redis is away the storage applies this instance's share; the list shows what applies, as headers do.
        const capacity = record.limit ?? table;
        return {
          method: bucket.method,
          group: bucket.group,
          capacity,
          period_seconds: RATE_LIMIT_PERIOD_MS / 1000,
          remaining: Math.max(0, capacity - record.totalHits),
          // Only where a route costs more than 1: the source's table has none, so its pairs' entries are unchanged.
          ...(bucket.costs.length > 0 ? { costs: bucket.costs } : {}),
          override: override
            ? {
                mode: override.mode,
                expires_at: override.expiresAtMs === null ? null : new Date(override.expiresAtMs).toISOString(),
              }
            : null,
        };
      }),
    );
    return { limits, quotas: await quotaStates(this.quotas, principal) };
  }

  /**
   * Every counted method × group with the access rules of its routes, built once from the plans. Routes of one
   * pair share a bucket; should their capacities differ, the smallest is the one a client can plan with.
   */
  allBuckets(): PairRoutes[] {
    if (this.pairs !== undefined) return this.pairs;
    const byPair = new Map<string, PairRoutes>();
    for (const plan of this.plans.all()) {
      const { skip, method, group, capacity, cost } = this.policy.limitsOf(plan);
      const rule = plan.part(this.auth.access);
      // `ALL` names no method a bucket could be listed under; a route without a rule is refused to everyone.
      if (skip || method === 'ALL' || rule === undefined) continue;
      const pair = byPair.get(`${method} ${group}`) ?? { bucket: { method, group, capacity, costs: [] }, rules: [] };
      pair.bucket.capacity = Math.min(pair.bucket.capacity, capacity);
      if (cost !== 1) pair.bucket.costs.push(...plan.route.paths.map((path) => ({ path, cost })));
      pair.rules.push(rule);
      byPair.set(`${method} ${group}`, pair);
    }
    this.pairs = [...byPair.values()].sort(
      (a, b) => a.bucket.group.localeCompare(b.bucket.group) || a.bucket.method.localeCompare(b.bucket.method),
    );
    return this.pairs;
  }
}

/** What the auth guard admits, for a principal it has admitted already (AuthGuard.admit). */
function allows(rule: AuthRule, principal: Principal): boolean {
  if (rule.public) return true;
  if (rule.jwtOnly && principal.kind !== 'jwt') return false;
  if (rule.apiKeyOnly && principal.kind !== 'api_key') return false;
  return rule.permission === undefined || grants(principal.permissions, rule.permission);
}
