import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DataSource, type EntityManager, type EntitySubscriberInterface, type QueryRunner } from 'typeorm';
import { accountMemberships } from '../../accounts/membership/membership-grants';
import { Clock } from '../../platform/common/clock/clock';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import type { AuditEventInput, AuditEventType } from './audit-event';
import { type AuditEventJson, toAuditEventJson } from './audit-event-json';
import { type AuditOutbox, AuditOutboxSink } from './audit-outbox';
import { discover } from '../../platform/common/discovery/discovered';
import { toEntity, toRow } from './audit-event-row';

const COLUMNS = [
  'company_id',
  'occurred_at',
  'type',
  'actor_kind',
  'actor_id',
  'actor_email',
  'subject_kind',
  'subject_id',
  'subject_email',
  'session_id',
  'ip',
  'user_agent',
  'details',
];

/** Events written inside a transaction that is still open, with the transaction depth they were written at. */
interface Pending {
  depth: number;
  events: AuditEventJson[];
}

interface RunnerAuditState {
  depth: number;
  pending: Pending[];
}

const STATE = Symbol('audit');

/**
 * Writes security events (docs/contract.md, "Security events") inside the caller's transaction, and announces them
 * (one `"msg": "audit"` log line and one `auth_events_total{type}` count each) only once that transaction has
 * committed.
 *
 * Usage: `await audit.record(manager, event)` with the `manager` of `dataSource.transaction(...)`, after the
 * change itself, in the same callback. Several events of one change go in one call (one INSERT).
 *
 * How "after commit" works: the recorder registers a TypeORM subscriber whose transaction hooks follow each
 * query runner's depth (savepoints included). Events recorded in an open transaction wait on that runner; they
 * are announced when the outermost transaction commits, and dropped when the transaction (or the savepoint they
 * were written in) rolls back. Recorded through a manager outside any transaction, the INSERT commits at once,
 * and so they are announced at once.
 */
@Injectable()
export class AuditRecorder implements OnModuleInit {
  /** Found once at start ({@link AuditOutboxSink}); every event is written through each. */
  private outboxes: readonly AuditOutbox[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: AppMetrics,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    this.outboxes = discover<AuditOutbox, void>(this.discovery, AuditOutboxSink).map((found) => found.instance);
    const subscriber: EntitySubscriberInterface = {
      afterTransactionStart: ({ queryRunner }) => {
        stateOf(queryRunner).depth++;
      },
      afterTransactionCommit: ({ queryRunner }) => {
        const state = stateOf(queryRunner);
        state.depth = Math.max(0, state.depth - 1);
        if (state.depth === 0) {
          const committed = state.pending;
          state.pending = [];
          for (const { events } of committed) this.announce(events);
        } else {
          // A released savepoint: its events now belong to the enclosing transaction.
          for (const entry of state.pending) entry.depth = Math.min(entry.depth, state.depth);
        }
      },
      afterTransactionRollback: ({ queryRunner }) => {
        const state = stateOf(queryRunner);
        state.depth = Math.max(0, state.depth - 1);
        state.pending = state.pending.filter((entry) => entry.depth <= state.depth && state.depth > 0);
      },
    };
    (this.dataSource.subscribers as EntitySubscriberInterface[]).push(subscriber);
  }

  /**
   * The event INSERT `insert` (ending in `RETURNING …`) as one statement with the outboxes' fan-out, when there
   * is any: the rows come back in id order, which is the order of the VALUES.
   */
  private withOutbox(insert: string, returning: string): string {
    if (this.outboxes.length === 0) return `${insert} RETURNING ${returning}`;
    const columns = new Set([...returning.split(', '), 'company_id', 'occurred_at']);
    const fanOuts = this.outboxes.map((outbox, i) => `fan_out_${i} AS (${outbox.fanOutSql('inserted')})`);
    return `WITH inserted AS (${insert} RETURNING ${[...columns].join(', ')}),
         ${fanOuts.join(',\n         ')}
         SELECT ${returning} FROM inserted ORDER BY id`;
  }

  /** Stores the events with one INSERT through `manager`; see the class comment for when they are announced. */
  async record(manager: EntityManager, event: AuditEventInput | AuditEventInput[]): Promise<void> {
    const events = Array.isArray(event) ? event : [event];
    if (events.length === 0) return;
    const occurredAt = this.clock.now();
    const values: unknown[] = [];
    const tuples = events.map((input) => {
      const row = toRow(input, occurredAt);
      const start = values.length;
      values.push(...row);
      return `(${row.map((_, i) => `$${start + i + 1}`).join(', ')})`;
    });
    const inserted: Array<{ id: string }> = await manager.query(
      this.withOutbox(`INSERT INTO audit_events (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, 'id'),
      values,
    );
    const stored = events.map((input, i) => toAuditEventJson(toEntity(input, occurredAt, inserted[i].id)));
    this.afterCommit(manager, stored);
  }

  private afterCommit(manager: EntityManager, stored: AuditEventJson[]): void {
    const runner = manager.queryRunner;
    if (runner && runner.isTransactionActive && !runner.isReleased) {
      const state = stateOf(runner);
      state.pending.push({ depth: state.depth, events: stored });
    } else {
      this.announce(stored);
    }
  }

  /**
   * One event in every company an account belongs to (a login attempt, a password change), the account being
   * the subject: the account and its companies come from their owner (accounts' `accountMemberships`), the
   * events go in with one INSERT. With `inCompany`, only there when the account belongs to it: an attempt into
   * one company is that company's (docs/contract.md "Whose people a company may speak for"). Returns how many
   * were stored: 0 when no account has that e-mail (or it belongs to no company), in which case the event is only
   * counted, never stored (docs/contract.md: it belongs to no company).
   */
  async recordForAccount(
    manager: EntityManager,
    account: { employeeId: number } | { email: string },
    input: Omit<AuditEventInput, 'companyId' | 'subject'>,
    inCompany?: number,
  ): Promise<number> {
    const found = await accountMemberships(
      manager,
      'employeeId' in account ? account : { email: account.email.trim().toLowerCase() },
    );
    if (!found) {
      this.countOnly(input.type);
      return 0;
    }
    const companies = found.memberships.map((membership) => membership.companyId);
    const named = companies.filter((companyId) => companyId === inCompany);
    const subject = { kind: 'employee' as const, id: found.employeeId, email: found.email };
    await this.record(
      manager,
      (named.length > 0 ? named : companies).map((companyId) => ({ ...input, companyId, subject })),
    );
    return named.length > 0 ? 1 : companies.length;
  }

  /** A login attempt for an e-mail with no account: counted, never stored (it belongs to no company). */
  countOnly(type: AuditEventType): void {
    this.metrics.authEvent(type);
  }

  private announce(events: AuditEventJson[]): void {
    for (const event of events) {
      this.metrics.authEvent(event.type);
      this.logger.info({ event }, 'audit');
    }
    for (const outbox of this.outboxes) outbox.committed(events);
  }
}

function stateOf(runner: QueryRunner): RunnerAuditState {
  const data = runner.data as { [STATE]?: RunnerAuditState };
  return (data[STATE] ??= { depth: 0, pending: [] });
}
