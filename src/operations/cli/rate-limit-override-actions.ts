import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { companyOfKey } from '../../identity/api-keys/api-key-records';
import { OPERATOR } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { CompanyService } from '../../accounts/company/company.service';
import {
  deleteOverride,
  listOverrides,
  type NewOverride,
  type OverrideView,
  overrideView,
  putOverride,
} from '../../rate-limiting/overrides/override-records';
import { RevocationBus } from '../../platform/revocation/revocation-bus';

/**
 * The operator's rate-limit overrides (docs/contract.md, `ratelimit:set`, `ratelimit:list`, `ratelimit:unset`).
 * Each change is stored with its audit event in one transaction, then announced on the bus: the command returns
 * once every instance has loaded the overrides again (bounded by the bus's wait).
 */
@Injectable()
export class RateLimitOverrideActions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly companies: CompanyService,
    private readonly bus: RevocationBus,
  ) {}

  async set(input: NewOverride): Promise<OverrideView> {
    const now = this.clock.now();
    if (input.expiresAt !== null && input.expiresAt.getTime() <= now.getTime()) {
      throw ApiError.validation(`--expires must be in the future, got ${input.expiresAt.toISOString()}`);
    }
    if (!(await this.companies.findById(input.companyId))) {
      throw ApiError.notFound(`no company has the id ${input.companyId}`);
    }
    const view = await this.dataSource.transaction(async (manager) => {
      if (input.apiKeyId !== null) await assertKeyOf(manager, input.apiKeyId, input.companyId);
      const { created, replaced } = await putOverride(manager, input, now);
      const view = overrideView(created);
      await this.audit.record(manager, {
        type: 'ratelimit.override_set',
        companyId: input.companyId,
        actor: OPERATOR,
        subject: input.apiKeyId === null ? null : { kind: 'api_key', id: input.apiKeyId, email: null },
        details: { ...auditDetails(view), replaced: replaced?.id ?? null },
      });
      return view;
    });
    await this.announceChange();
    return view;
  }

  async list(companyId?: number): Promise<OverrideView[]> {
    return (await listOverrides(this.dataSource.manager, companyId)).map(overrideView);
  }

  async unset(id: number): Promise<OverrideView & { removed: true }> {
    const view = await this.dataSource.transaction(async (manager) => {
      const row = await deleteOverride(manager, id);
      if (row === null) throw ApiError.notFound(`no rate-limit override has the id ${id}`);
      const view = overrideView(row);
      await this.audit.record(manager, {
        type: 'ratelimit.override_removed',
        companyId: row.companyId,
        actor: OPERATOR,
        subject: row.apiKeyId === null ? null : { kind: 'api_key', id: row.apiKeyId, email: null },
        details: auditDetails(view),
      });
      return view;
    });
    await this.announceChange();
    return { ...view, removed: true };
  }

  /**
   * Every instance (this one first, when the service runs the command) loads the overrides again; resolves when
   * they have confirmed. The CLI's own process holds no overrides: it only announces.
   */
  private announceChange(): Promise<void> {
    return this.bus.publish({ type: 'rate_limit_overrides' });
  }
}

async function assertKeyOf(manager: EntityManager, apiKeyId: string, companyId: number): Promise<void> {
  const owner = await companyOfKey(manager, apiKeyId);
  if (owner === null) throw ApiError.notFound(`no API key has the id ${apiKeyId}`);
  if (owner !== companyId) throw ApiError.validation(`API key ${apiKeyId} belongs to another company`);
}

/** The override as the audit trail keeps it (its company is the event's). */
function auditDetails(view: OverrideView): Record<string, unknown> {
  const { id, api_key_id, method, group, limit, mode, expires_at } = view;
  return { override_id: id, api_key_id, method, group, limit, mode, expires_at };
}
