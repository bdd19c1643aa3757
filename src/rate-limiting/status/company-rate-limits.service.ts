import { Injectable } from '@nestjs/common';
import { RateLimitOverrides } from '../overrides/rate-limit-overrides';
import { RateLimitQuotas } from '../quotas/rate-limit-quotas';
import { LIMITED_WINDOW_MS, LimitedCredentials } from '../limiter/limited-credentials';
import { RATE_LIMIT_PERIOD_MS } from '../limiter/rate-limit.policy';
import type { CompanyRateLimitsDto } from './dto/company-rate-limits.dto';
import { RateLimitStatusService } from './rate-limit-status.service';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * `GET /v1/ratelimits/company`, the administration page's read-only view of a company's limits: the table, the
 * operator's overrides and quotas as this instance applies them, and which credentials were refused in the last hour.
 * Memory reads only: the overrides' copy every instance holds and the guard's {@link LimitedCredentials}.
 */
@Injectable()
export class CompanyRateLimitsService {
  constructor(
    private readonly status: RateLimitStatusService,
    private readonly overrides: RateLimitOverrides,
    private readonly limited: LimitedCredentials,
    private readonly quotas: RateLimitQuotas,
  ) {}

  of(companyId: number): CompanyRateLimitsDto {
    const limits = this.status.allBuckets().map(({ bucket }) => {
      const override = this.overrides.lookup(companyId, null, bucket.method, bucket.group);
      return {
        method: bucket.method,
        group: bucket.group,
        capacity: bucket.capacity,
        effective_capacity: override?.mode === 'enforce' ? override.limit : bucket.capacity,
        period_seconds: RATE_LIMIT_PERIOD_MS / 1000,
      };
    });
    const overrides = this.overrides.ofCompany(companyId).map((rule) => ({
      id: rule.id,
      api_key_id: rule.apiKeyId,
      method: rule.method,
      group: rule.group,
      limit: rule.limit,
      mode: rule.mode,
      expires_at: iso(rule.expiresAtMs),
    }));
    const limited = this.limited.ofCompany(companyId).map((entry) => ({
      kind: entry.kind,
      credential_id: entry.credentialId,
      employee: entry.employee,
      method: entry.method,
      group: entry.group,
      refused: entry.refused,
      shadow_limited: entry.shadowLimited,
      first_at: iso(entry.firstAtMs)!,
      last_at: iso(entry.lastAtMs)!,
    }));
    const quotas = this.quotas
      .ofCompany(companyId)
      .map(({ id, apiKeyId, per, limit }) => ({ id, api_key_id: apiKeyId, per, limit }));
    return { limits, overrides, quotas, limited, window_seconds: LIMITED_WINDOW_MS / 1000 };
  }
}
