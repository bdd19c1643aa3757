/** What an override does: `enforce` replaces the table's capacity; `shadow` only reports what it would refuse. */
export type OverrideMode = 'enforce' | 'shadow';

export const OVERRIDE_MODES: readonly OverrideMode[] = ['enforce', 'shadow'];

/** The override's whole scope means "any": `--method '*'`, `--group '*'`. */
export const ANY = '*';

/** One live override as every instance holds it in memory. */
export interface OverrideRule {
  id: number;
  companyId: number;
  apiKeyId: string | null;
  method: string;
  group: string;
  limit: number;
  mode: OverrideMode;
  /** `null`: until removed. */
  expiresAtMs: number | null;
}

/** A company's overrides: those for all its credentials, and those of single API keys. */
interface CompanyRules {
  company: OverrideRule[];
  keys: Map<string, OverrideRule[]>;
}

/**
 * All live overrides, keyed by company then API key, so the rate limiter's question costs two Map reads (one
 * when the company has none, which is nearly every request). Immutable: a reload builds a new table.
 *
 * Precedence (docs/contract.md): an API key's override wins over its company's; within one of them an exact
 * method wins over `*`, then an exact group over `*` (so `GET *` wins over `* products`). An expired override
 * is skipped at once, by the clock the caller passes, whatever the next reload does.
 */
export class OverrideTable {
  static readonly EMPTY = new OverrideTable([]);

  private readonly byCompany = new Map<number, CompanyRules>();
  readonly size: number;

  constructor(rules: readonly OverrideRule[]) {
    this.size = rules.length;
    for (const rule of rules) {
      let company = this.byCompany.get(rule.companyId);
      if (company === undefined) {
        company = { company: [], keys: new Map() };
        this.byCompany.set(rule.companyId, company);
      }
      if (rule.apiKeyId === null) {
        company.company.push(rule);
      } else {
        const own = company.keys.get(rule.apiKeyId) ?? [];
        own.push(rule);
        company.keys.set(rule.apiKeyId, own);
      }
    }
  }

  /** The company's live overrides (its own, then its API keys'), for the administration page. */
  ofCompany(companyId: number, nowMs: number): OverrideRule[] {
    const company = this.byCompany.get(companyId);
    if (company === undefined) return [];
    const live = (rule: OverrideRule) => rule.expiresAtMs === null || rule.expiresAtMs > nowMs;
    return [...company.company, ...[...company.keys.values()].flat()].filter(live);
  }

  /** The override that applies to a credential of `companyId` (an API key's id, or null) on method × group. */
  lookup(
    companyId: number,
    apiKeyId: string | null,
    method: string,
    group: string,
    nowMs: number,
  ): OverrideRule | undefined {
    const company = this.byCompany.get(companyId);
    if (company === undefined) return undefined;
    if (apiKeyId !== null) {
      const own = company.keys.get(apiKeyId);
      const found = own && best(own, method, group, nowMs);
      if (found !== undefined) return found;
    }
    return best(company.company, method, group, nowMs);
  }
}

function best(rules: readonly OverrideRule[], method: string, group: string, nowMs: number): OverrideRule | undefined {
  let found: OverrideRule | undefined;
  let foundScore = -1;
  for (const rule of rules) {
    if (rule.expiresAtMs !== null && rule.expiresAtMs <= nowMs) continue;
    const methodExact = rule.method === method;
    const groupExact = rule.group === group;
    if ((!methodExact && rule.method !== ANY) || (!groupExact && rule.group !== ANY)) continue;
    const score = (methodExact ? 2 : 0) + (groupExact ? 1 : 0);
    if (score > foundScore) {
      found = rule;
      foundScore = score;
    }
  }
  return found;
}
