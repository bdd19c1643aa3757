import type { CredentialOwner } from '../../access/rules/rate-limit-credentials';
import { PERIOD_MS, remainingOf } from '../quotas/quota-table';
import type { RateLimitQuotas } from '../quotas/rate-limit-quotas';
import type { RateLimitQuotaStateDto } from './dto/rate-limit-quota-state.dto';

/** The caller's quotas for GET /v1/ratelimits, as they stand now (read without counting), company's first. */
export async function quotaStates(quotas: RateLimitQuotas, owner: CredentialOwner): Promise<RateLimitQuotaStateDto[]> {
  if (!quotas.any) return [];
  return (await quotas.peek(owner)).map((taken) => ({
    api_key_id: taken.rule.apiKeyId,
    per: taken.rule.per,
    limit: taken.applied,
    window_seconds: PERIOD_MS[taken.rule.per] / 1000,
    remaining: remainingOf(taken),
    resets_at: new Date(taken.endsAtMs).toISOString(),
  }));
}
