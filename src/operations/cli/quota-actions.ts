import { Injectable } from '@nestjs/common';
import {
  deleteQuota,
  listQuotas,
  type NewQuota,
  type QuotaView,
  quotaView,
  putQuota,
} from '../../rate-limiting/quotas/quota-records';
import type { RateLimitQuota } from '../../rate-limiting/quotas/rate-limit-quota.entity';
import { type OperatorRuleKind, OperatorRules } from './operator-rules';

const QUOTAS: OperatorRuleKind<NewQuota, RateLimitQuota, QuotaView> = {
  noun: 'quota',
  setEvent: 'ratelimit.quota_set',
  removedEvent: 'ratelimit.quota_removed',
  put: putQuota,
  list: listQuotas,
  remove: deleteQuota,
  view: quotaView,
  auditDetails: ({ id, api_key_id, per, limit }) => ({ quota_id: id, api_key_id, per, limit }),
};

/** The operator's quotas (docs/contract.md, `quota:set`, `quota:list`, `quota:unset`). */
@Injectable()
export class QuotaActions {
  constructor(private readonly rules: OperatorRules) {}

  set(input: NewQuota): Promise<QuotaView> {
    return this.rules.set(QUOTAS, input);
  }

  list(companyId?: number): Promise<QuotaView[]> {
    return this.rules.list(QUOTAS, companyId);
  }

  unset(id: number): Promise<QuotaView & { removed: true }> {
    return this.rules.unset(QUOTAS, id);
  }
}
