import { serializeInteger, serializeString } from 'structured-headers';
import type { QuotaRule } from './quota-records';
import type { QuotaPeriod } from './rate-limit-quota.entity';

/** Each period's length; windows start at whole multiples of it since the epoch, i.e. on the UTC hour and day. */
export const PERIOD_MS: Readonly<Record<QuotaPeriod, number>> = { hour: 3_600_000, day: 86_400_000 };

/** The fixed window `nowMs` falls in: [start, end) in ms, aligned to UTC. */
export function windowOf(per: QuotaPeriod, nowMs: number): { start: number; end: number } {
  const length = PERIOD_MS[per];
  const start = Math.floor(nowMs / length) * length;
  return { start, end: start + length };
}

/**
 * The counter of a scope's window: the company's (`*`) or one API key's, per period, named by the window's
 * start, so every instance counts a window on the same key and a new window on a new one. The count belongs to
 * the scope, not to the row: setting a quota again keeps what the window has counted.
 */
export const quotaCounterKey = (rule: QuotaRule, windowStart: number): string =>
  `quota:${rule.companyId}:${rule.apiKeyId ?? '*'}:${rule.per}:${windowStart}`;

/** What one counted request did to one quota. */
export interface QuotaTaken {
  rule: QuotaRule;
  /** The window's count after this request (those over the limit included). */
  hits: number;
  /** The limit applied: the quota's, or while Redis is away this instance's share of it. */
  applied: number;
  /** Whole seconds, rounded up, until the window ends. */
  secondsLeft: number;
  /** When the window ends, in ms since the epoch. */
  endsAtMs: number;
}

export const remainingOf = (taken: QuotaTaken): number => Math.max(0, taken.applied - taken.hits);
export const isOver = (taken: QuotaTaken): boolean => taken.hits > taken.applied;

/**
 * The IETF items of the quotas a request counted on (draft-ietf-httpapi-ratelimit-headers-11), named by the
 * period: `"day";q=100000;w=86400` and `"day";r=99998;t=3600`. Where a company's and an API key's quota of the
 * same period both apply, the one with less left is shown (the one that will refuse first).
 */
export function quotaFields(taken: readonly QuotaTaken[]): { policy: string; state: string } | undefined {
  const shown = new Map<QuotaPeriod, QuotaTaken>();
  for (const item of taken) {
    const other = shown.get(item.rule.per);
    if (other === undefined || remainingOf(item) < remainingOf(other)) shown.set(item.rule.per, item);
  }
  if (shown.size === 0) return undefined;
  const policies: string[] = [];
  const states: string[] = [];
  for (const per of ['hour', 'day'] as const) {
    const item = shown.get(per);
    if (item === undefined) continue;
    const name = serializeString(per);
    policies.push(`${name};q=${serializeInteger(item.applied)};w=${serializeInteger(PERIOD_MS[per] / 1000)}`);
    states.push(`${name};r=${serializeInteger(remainingOf(item))};t=${serializeInteger(item.secondsLeft)}`);
  }
  return { policy: policies.join(', '), state: states.join(', ') };
}

const NONE: readonly QuotaRule[] = Object.freeze([]);

/** Every quota, indexed for the limiter's one question: which apply to this company's or this key's requests. */
export class QuotaTable {
  static readonly EMPTY = new QuotaTable([]);

  private readonly byCompany = new Map<number, QuotaRule[]>();
  private readonly byKey = new Map<string, QuotaRule[]>();
  readonly size: number;

  constructor(private readonly rules: readonly QuotaRule[]) {
    this.size = rules.length;
    for (const rule of rules) {
      if (rule.apiKeyId === null) push(this.byCompany, rule.companyId, rule);
      else push(this.byKey, rule.apiKeyId, rule);
    }
  }

  /** Every quota of the company, its API keys' included, oldest first. */
  ofCompany(companyId: number): QuotaRule[] {
    return this.rules.filter((rule) => rule.companyId === companyId);
  }

  /**
   * The company's own quotas and, for an API key, the key's (a key's quota is counted besides the company's).
   * Asked on every counted request while any quota exists: a credential with none gets one shared empty list,
   * not a new one.
   */
  applying(companyId: number, apiKeyId: string | null): readonly QuotaRule[] {
    const company = this.byCompany.get(companyId) ?? NONE;
    const key = apiKeyId === null ? undefined : this.byKey.get(apiKeyId);
    if (key === undefined) return company;
    // A key of another company (not possible through the CLI) is not counted against this one.
    const own = key.filter((rule) => rule.companyId === companyId);
    return own.length === 0 ? company : [...company, ...own];
  }
}

function push<K>(map: Map<K, QuotaRule[]>, key: K, rule: QuotaRule): void {
  const list = map.get(key);
  if (list) list.push(rule);
  else map.set(key, [rule]);
}
