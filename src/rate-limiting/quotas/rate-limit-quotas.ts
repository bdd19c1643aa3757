import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import type { CredentialOwner } from '../../access/rules/rate-limit-credentials';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { RATE_LIMIT_STORAGE, type WindowStorage, wholeSeconds } from '../../platform/counters/rate-limit-storage';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { allQuotaRules, type QuotaRule } from './quota-records';
import { isOver, quotaCounterKey, quotaFields, QuotaTable, type QuotaTaken, windowOf } from './quota-table';

/** A reload without a notice, should one be lost: the overrides' bound. */
const RELOAD_EVERY_MS = 30_000;
/**
 * GET /v1/ratelimits's own group (its controller's @RateLimit): asking what is left takes nothing from a quota,
 * and is answered when a quota is used up (this module cannot import the status module, which reads it).
 */
const NOT_COUNTED_GROUPS: ReadonlySet<string> = new Set(['ratelimits']);
/** A window's counter outlives its end by this much, so that clocks a little apart never count on a dead key. */
const KEY_GRACE_MS = 60_000;
/** The IETF fields (the limiter's rate-limit-response-headers.ts names them too; this module cannot import it). */
const POLICY_HEADER = 'ratelimit-policy';
const STATE_HEADER = 'ratelimit';

/**
 * The operator's quotas (docs/contract.md, "Beyond the bucket": quotas) as every instance applies them: the
 * table in memory (loaded at start, again on the bus's "rate_limit_overrides" notice the CLI sends after a change,
 * and every 30 s), and the counting, a step of the limiter's decision (RateLimitGuard).
 *
 * Each quota is a fixed window aligned to UTC (the hour, the day, by the injected clock) counted in the limiter's
 * storage as a window (`hitWindow`): on Redis one `INCR` with its expiry in one script, atomic, so the count is
 * exact across the fleet; issued beside the bucket's script, so it adds no round trip in sequence; while Redis is
 * away the resilient storage counts in memory at this instance's share of the limit, as it does for buckets. Every
 * request the limiter counts for a credential of the company (or key) takes one, a bucket's 429 included; the
 * request that makes the count pass the limit, and every one after it in the window, is refused with 429 and
 * `Retry-After` until the window ends.
 */
@Injectable()
export class RateLimitQuotas implements OnModuleInit, OnApplicationShutdown {
  private table = QuotaTable.EMPTY;
  private generation = 0;
  private timer?: NodeJS.Timeout;
  private refused = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly bus: RevocationBus,
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: WindowStorage,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: AppMetrics,
  ) {
    metrics.readCounter({
      name: 'rate_limit_quota_refused_total',
      help: "Requests refused with 429 because their company's or API key's quota for the hour or day was used up.",
      read: () => this.refused,
    });
  }

  async onModuleInit(): Promise<void> {
    this.bus.onNotice((notice) => {
      if (notice.type === 'rate_limit_overrides' || notice.type === 'resync') void this.reload();
    });
    await this.reload();
    this.timer = setInterval(() => void this.reload(), RELOAD_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** False while no quota exists: the limiter then asks nothing more. */
  get any(): boolean {
    return this.table.size > 0;
  }

  /** The company's quotas and its API keys' (the administration page's Limits screen). */
  ofCompany(companyId: number): QuotaRule[] {
    return this.table.ofCompany(companyId);
  }

  /** The quotas that apply to this credential's requests. */
  applying(owner: CredentialOwner): readonly QuotaRule[] {
    return this.table.applying(owner.companyId, owner.kind === 'api_key' ? owner.credentialId : null);
  }

  /**
   * Counts one request of this API group on each quota of its credential; `undefined` when none applies. Never rejects: a count
   * that fails is left out (the storage answers from memory while Redis is away, so that is only a bug's way).
   */
  take(owner: CredentialOwner, group: string): Promise<QuotaTaken[]> | undefined {
    if (NOT_COUNTED_GROUPS.has(group)) return undefined;
    const rules = this.applying(owner);
    if (rules.length === 0) return undefined;
    const now = this.clock.nowMs();
    return Promise.all(rules.map((rule) => this.count(rule, now, true))).then((taken) =>
      taken.filter((item) => item !== undefined),
    );
  }

  /** Each quota of this credential as it stands now, counting nothing (GET /v1/ratelimits). */
  async peek(owner: CredentialOwner): Promise<QuotaTaken[]> {
    const now = this.clock.nowMs();
    const taken = await Promise.all(this.applying(owner).map((rule) => this.count(rule, now, false)));
    return taken.filter((item) => item !== undefined);
  }

  /** Adds the quotas' IETF items to the answer's `RateLimit-Policy` and `RateLimit` (the bucket's come first). */
  describe(reply: FastifyReply, taken: readonly QuotaTaken[]): void {
    const fields = quotaFields(taken);
    if (fields === undefined) return;
    reply.header(POLICY_HEADER, joined(reply.getHeader(POLICY_HEADER), fields.policy));
    reply.header(STATE_HEADER, joined(reply.getHeader(STATE_HEADER), fields.state));
  }

  /** Refuses the request when a quota is used up: 429, `Retry-After` until the (latest) window ends. */
  enforce(taken: readonly QuotaTaken[]): void {
    let wait = 0;
    for (const item of taken) if (isOver(item)) wait = Math.max(wait, item.secondsLeft);
    if (wait === 0) return;
    this.refused++;
    throw ApiError.requestRateLimited(wait);
  }

  /** Holds these quotas from now on (a reload's result; specs set them directly). */
  replace(rules: readonly QuotaRule[]): void {
    this.table = new QuotaTable(rules);
  }

  /** Loads every quota; while the database does not answer, the table in memory stays. */
  async reload(): Promise<void> {
    const generation = ++this.generation;
    try {
      const rules = await allQuotaRules(this.dataSource.manager);
      if (generation === this.generation) this.replace(rules);
    } catch (error) {
      this.logger.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'could not load the rate-limit quotas; the ones in memory stay',
      );
    }
  }

  private count(rule: QuotaRule, now: number, hit: boolean): Promise<QuotaTaken | undefined> {
    const { start, end } = windowOf(rule.per, now);
    const key = quotaCounterKey(rule, start);
    const lifetime = end - now + KEY_GRACE_MS;
    const counted = hit
      ? this.counters.hitWindow(key, lifetime, rule.limit)
      : this.counters.peekWindow(key, lifetime, rule.limit);
    return counted.then(
      (record) => ({
        rule,
        hits: record.hits,
        applied: record.limit ?? rule.limit,
        secondsLeft: wholeSeconds(end - now),
        endsAtMs: end,
      }),
      (error: unknown) => {
        this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'quota not counted');
        return undefined;
      },
    );
  }
}

const joined = (before: ReturnType<FastifyReply['getHeader']>, more: string): string =>
  before === undefined || before === '' ? more : `${String(before)}, ${more}`;
