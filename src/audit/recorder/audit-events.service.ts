import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuditEvent } from './audit-event.entity';
import { type AuditEventJson, toAuditEventJson } from './audit-event-json';
import { ApiError } from '../../platform/common/errors/api-error';
import { decodeCursor, encodeCursor } from './audit-cursor';
import type { AuditEventQueryDto } from './dto/audit-events.dto';

export interface AuditFilter {
  types?: string[];
  actorId?: string;
  subjectId?: string;
  since?: Date;
  until?: Date;
}

interface AuditRow {
  id: string;
  company_id: number;
  occurred_at: Date | string;
  type: AuditEvent['type'];
  actor_kind: AuditEvent['actorKind'];
  actor_id: string | null;
  actor_email: string | null;
  subject_kind: AuditEvent['subjectKind'];
  subject_id: string | null;
  subject_email: string | null;
  session_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown> | string;
  micros: string;
}

const SELECT = `SELECT id, company_id, occurred_at, type, actor_kind, actor_id, actor_email, subject_kind, subject_id,
                       subject_email, session_id, ip, user_agent, details,
                       (extract(epoch FROM occurred_at) * 1000000)::bigint::text AS micros
                  FROM audit_events`;

function toJson(row: AuditRow): AuditEventJson {
  return toAuditEventJson({
    id: String(row.id),
    companyId: row.company_id,
    occurredAt: new Date(row.occurred_at),
    type: row.type,
    actorKind: row.actor_kind,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    subjectKind: row.subject_kind,
    subjectId: row.subject_id,
    subjectEmail: row.subject_email,
    sessionId: row.session_id,
    ip: row.ip,
    userAgent: row.user_agent,
    details: typeof row.details === 'string' ? (JSON.parse(row.details) as Record<string, unknown>) : row.details,
  });
}

function isoTime(field: 'since' | 'until', value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) {
    throw ApiError.validation(`${field} must be an ISO 8601 date and time`, [
      { field, message: 'must be an ISO 8601 date and time' },
    ]);
  }
  return time;
}

/** Reading the audit trail: one company's events, newest first, in keyset pages. */
@Injectable()
export class AuditEventsService {
  constructor(private readonly dataSource: DataSource) {}

  async page(
    companyId: number,
    query: AuditEventQueryDto,
  ): Promise<{ data: AuditEventJson[]; next_cursor: string | null }> {
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const filter: AuditFilter = {
      types: query.type,
      actorId: query.actor_id,
      subjectId: query.subject_id,
      since: isoTime('since', query.since),
      until: isoTime('until', query.until),
    };
    const { where, values } = this.where(companyId, filter);
    if (cursor) {
      values.push(cursor.micros, cursor.id);
      where.push(
        `(occurred_at, id) < ('epoch'::timestamptz + $${values.length - 1}::bigint * interval '1 microsecond', ` +
          `$${values.length}::bigint)`,
      );
    }
    values.push(query.limit + 1);
    const rows: AuditRow[] = await this.dataSource.query(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toJson),
      next_cursor: rows.length > query.limit ? encodeCursor({ micros: last.micros, id: String(last.id) }) : null,
    };
  }

  /** Every event of a company in the window, oldest first, in batches (for `audit:export`). */
  async *export(companyId: number, filter: AuditFilter, batchSize = 1000): AsyncGenerator<AuditEventJson> {
    const { where, values } = this.where(companyId, filter);
    let after: { micros: string; id: string } | null = null;
    for (;;) {
      const params = [...values];
      const conditions = [...where];
      if (after) {
        params.push(after.micros, after.id);
        conditions.push(
          `(occurred_at, id) > ('epoch'::timestamptz + $${params.length - 1}::bigint * interval '1 microsecond', ` +
            `$${params.length}::bigint)`,
        );
      }
      params.push(batchSize);
      const rows: AuditRow[] = await this.dataSource.query(
        `${SELECT} WHERE ${conditions.join(' AND ')} ORDER BY occurred_at, id LIMIT $${params.length}`,
        params,
      );
      for (const row of rows) yield toJson(row);
      if (rows.length < batchSize) return;
      const last = rows[rows.length - 1];
      after = { micros: last.micros, id: String(last.id) };
    }
  }

  private where(companyId: number, filter: AuditFilter): { where: string[]; values: unknown[] } {
    const where = ['company_id = $1'];
    const values: unknown[] = [companyId];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      values.push(value);
      where.push(condition(`$${values.length}`));
    };
    if (filter.types?.length) add((p) => `type = ANY(${p}::text[])`, filter.types);
    if (filter.actorId !== undefined) add((p) => `actor_id = ${p}`, filter.actorId);
    if (filter.subjectId !== undefined) add((p) => `subject_id = ${p}`, filter.subjectId);
    if (filter.since) add((p) => `occurred_at >= ${p}`, filter.since);
    if (filter.until) add((p) => `occurred_at < ${p}`, filter.until);
    return { where, values };
  }
}
