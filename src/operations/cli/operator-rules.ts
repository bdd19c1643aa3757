import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { companyOfKey } from '../../identity/api-keys/api-key-records';
import { OPERATOR } from '../../audit/recorder/audit-actor';
import type { AuditEventType } from '../../audit/recorder/audit-event';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { CompanyService } from '../../accounts/company/company.service';
import { RevocationBus } from '../../platform/revocation/revocation-bus';

/** Whom an operator's rule binds: a company's credentials, or one of its API keys. */
interface RuleScope {
  companyId: number;
  apiKeyId: string | null;
}

/**
 * One kind of operator rule kept per company or API key (a rate-limit override, a quota): its records, its
 * events and how it is shown. {@link OperatorRules} does the rest the same way for every kind.
 */
export interface OperatorRuleKind<Input extends RuleScope, Row extends RuleScope & { id: number }, View> {
  /** As messages name one: "quota", "rate-limit override". */
  noun: string;
  setEvent: AuditEventType;
  removedEvent: AuditEventType;
  /** A check of the input against the time now, before anything is read (an expiry in the past). */
  check?(input: Input, now: Date): void;
  put(manager: EntityManager, input: Input, now: Date): Promise<{ created: Row; replaced: { id: number } | null }>;
  list(manager: EntityManager, companyId?: number): Promise<Row[]>;
  remove(manager: EntityManager, id: number): Promise<Row | null>;
  view(row: Row): View;
  /** The rule as the audit trail keeps it (its company is the event's). */
  auditDetails(view: View): Record<string, unknown>;
}

/**
 * The operator's rules (docs/contract.md: `ratelimit:*`, `quota:*`). Each change is stored with its audit event
 * in one transaction, then announced on the bus (the overrides' notice, on which every instance loads overrides
 * and quotas again): the command returns once every instance has confirmed (bounded by the bus's wait). The
 * CLI's own process holds no rules: it only announces.
 */
@Injectable()
export class OperatorRules {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly companies: CompanyService,
    private readonly bus: RevocationBus,
  ) {}

  async set<I extends RuleScope, R extends RuleScope & { id: number }, V>(
    kind: OperatorRuleKind<I, R, V>,
    input: I,
  ): Promise<V> {
    const now = this.clock.now();
    kind.check?.(input, now);
    if (!(await this.companies.findById(input.companyId))) {
      throw ApiError.notFound(`no company has the id ${input.companyId}`);
    }
    const view = await this.dataSource.transaction(async (manager) => {
      if (input.apiKeyId !== null) await assertKeyOf(manager, input.apiKeyId, input.companyId);
      const { created, replaced } = await kind.put(manager, input, now);
      const view = kind.view(created);
      await this.audit.record(manager, {
        type: kind.setEvent,
        companyId: input.companyId,
        actor: OPERATOR,
        subject: subjectOf(input),
        details: { ...kind.auditDetails(view), replaced: replaced?.id ?? null },
      });
      return view;
    });
    await this.announceChange();
    return view;
  }

  async list<I extends RuleScope, R extends RuleScope & { id: number }, V>(
    kind: OperatorRuleKind<I, R, V>,
    companyId?: number,
  ): Promise<V[]> {
    return (await kind.list(this.dataSource.manager, companyId)).map((row) => kind.view(row));
  }

  async unset<I extends RuleScope, R extends RuleScope & { id: number }, V>(
    kind: OperatorRuleKind<I, R, V>,
    id: number,
  ): Promise<V & { removed: true }> {
    const view = await this.dataSource.transaction(async (manager) => {
      const row = await kind.remove(manager, id);
      if (row === null) throw ApiError.notFound(`no ${kind.noun} has the id ${id}`);
      const view = kind.view(row);
      await this.audit.record(manager, {
        type: kind.removedEvent,
        companyId: row.companyId,
        actor: OPERATOR,
        subject: subjectOf(row),
        details: kind.auditDetails(view),
      });
      return view;
    });
    await this.announceChange();
    return { ...view, removed: true };
  }

  /** Every instance (this one first, when the service runs the command) loads the rules again. */
  private announceChange(): Promise<void> {
    return this.bus.publish({ type: 'rate_limit_overrides' });
  }
}

const subjectOf = (scope: RuleScope) =>
  scope.apiKeyId === null ? null : { kind: 'api_key' as const, id: scope.apiKeyId, email: null };

async function assertKeyOf(manager: EntityManager, apiKeyId: string, companyId: number): Promise<void> {
  const owner = await companyOfKey(manager, apiKeyId);
  if (owner === null) throw ApiError.notFound(`no API key has the id ${apiKeyId}`);
  if (owner !== companyId) throw ApiError.validation(`API key ${apiKeyId} belongs to another company`);
}
