import { Injectable } from '@nestjs/common';
import { ApiError } from '../../platform/common/errors/api-error';
import {
  deleteOverride,
  listOverrides,
  type NewOverride,
  type OverrideView,
  overrideView,
  putOverride,
} from '../../rate-limiting/overrides/override-records';
import type { RateLimitOverride } from '../../rate-limiting/overrides/rate-limit-override.entity';
import { type OperatorRuleKind, OperatorRules } from './operator-rules';

const OVERRIDES: OperatorRuleKind<NewOverride, RateLimitOverride, OverrideView> = {
  noun: 'rate-limit override',
  setEvent: 'ratelimit.override_set',
  removedEvent: 'ratelimit.override_removed',
  check(input, now) {
    if (input.expiresAt !== null && input.expiresAt.getTime() <= now.getTime()) {
      throw ApiError.validation(`--expires must be in the future, got ${input.expiresAt.toISOString()}`);
    }
  },
  put: putOverride,
  list: listOverrides,
  remove: deleteOverride,
  view: overrideView,
  auditDetails: ({ id, api_key_id, method, group, limit, mode, expires_at }) => ({
    override_id: id,
    api_key_id,
    method,
    group,
    limit,
    mode,
    expires_at,
  }),
};

/** The operator's rate-limit overrides (docs/contract.md, `ratelimit:set`, `ratelimit:list`, `ratelimit:unset`). */
@Injectable()
export class RateLimitOverrideActions {
  constructor(private readonly rules: OperatorRules) {}

  set(input: NewOverride): Promise<OverrideView> {
    return this.rules.set(OVERRIDES, input);
  }

  list(companyId?: number): Promise<OverrideView[]> {
    return this.rules.list(OVERRIDES, companyId);
  }

  unset(id: number): Promise<OverrideView & { removed: true }> {
    return this.rules.unset(OVERRIDES, id);
  }
}
