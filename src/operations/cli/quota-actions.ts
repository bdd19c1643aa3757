import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { companyOfKey } from '../../identity/api-keys/api-key-records';
import { OPERATOR } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { CompanyService } from '../../accounts/company/company.service';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import {
  deleteQuota,
  listQuotas,
  type NewQuota,
  type QuotaView,
  quotaView,
  putQuota,
} from '../../rate-limiting/quotas/quota-records';

/**
 * The operator's quotas (docs/contract.md, `quota:set`, `quota:list`, `quota:unset`). As the overrides
 * (RateLimitOverrideActions): each change is stored with its audit event in one transaction, then announced on
 * the bus (the overrides' notice, on which every instance loads overrides and quotas again).
 */
@Injectable()
export class QuotaActions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly companies: CompanyService,
    private readonly bus: RevocationBus,
  ) {}

  async set(input: NewQuota): Promise<QuotaView> {
    if (!(await this.companies.findById(input.companyId))) {
      throw ApiError.notFound(`no company has the id ${input.companyId}`);
    }
    const view = await this.dataSource.transaction(async (manager) => {
      if (input.apiKeyId !== null) {
        const owner = await companyOfKey(manager, input.apiKeyId);
        if (owner === null) throw ApiError.notFound(`no API key has the id ${input.apiKeyId}`);
        if (owner !== input.companyId) {
          throw ApiError.validation(`API key ${input.apiKeyId} belongs to another company`);
        }
      }
      const { created, replaced } = await putQuota(manager, input, this.clock.now());
      const view = quotaView(created);
      await this.audit.record(manager, {
        type: 'ratelimit.quota_set',
        companyId: input.companyId,
        actor: OPERATOR,
        subject: input.apiKeyId === null ? null : { kind: 'api_key', id: input.apiKeyId, email: null },
        details: { ...auditDetails(view), replaced: replaced?.id ?? null },
      });
      return view;
    });
    await this.bus.publish({ type: 'rate_limit_overrides' });
    return view;
  }

  async list(companyId?: number): Promise<QuotaView[]> {
    return (await listQuotas(this.dataSource.manager, companyId)).map(quotaView);
  }

  async unset(id: number): Promise<QuotaView & { removed: true }> {
    const view = await this.dataSource.transaction(async (manager) => {
      const row = await deleteQuota(manager, id);
      if (row === null) throw ApiError.notFound(`no quota has the id ${id}`);
      const view = quotaView(row);
      await this.audit.record(manager, {
        type: 'ratelimit.quota_removed',
        companyId: row.companyId,
        actor: OPERATOR,
        subject: row.apiKeyId === null ? null : { kind: 'api_key', id: row.apiKeyId, email: null },
        details: auditDetails(view),
      });
      return view;
    });
    await this.bus.publish({ type: 'rate_limit_overrides' });
    return { ...view, removed: true };
  }
}

/** The quota as the audit trail keeps it (its company is the event's). */
function auditDetails(view: QuotaView): Record<string, unknown> {
  const { id, api_key_id, per, limit } = view;
  return { quota_id: id, api_key_id, per, limit };
}
