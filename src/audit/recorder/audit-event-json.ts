import type { AuditEvent } from './audit-event.entity';
import type { AuditActorKind, AuditEventType, AuditSubject } from './audit-event';

/** An event as the API, the log line and `audit:export` show it (docs/contract.md, "Security events"). */
export interface AuditEventJson {
  id: string;
  occurred_at: string;
  type: AuditEventType;
  company_id: number;
  actor: { kind: AuditActorKind; id: number | string | null; email: string | null };
  subject: { kind: AuditSubject['kind']; id: number | string; email: string | null } | null;
  session_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

/** Employee and role ids are integers everywhere else in the API; they are stored as text beside API key UUIDs. */
function typedId(kind: string, id: string): number | string {
  return kind === 'employee' || kind === 'role' ? Number(id) : id;
}

export function toAuditEventJson(row: AuditEvent): AuditEventJson {
  return {
    id: String(row.id),
    occurred_at: row.occurredAt.toISOString(),
    type: row.type,
    company_id: row.companyId,
    actor: {
      kind: row.actorKind,
      id: row.actorId === null ? null : typedId(row.actorKind, row.actorId),
      email: row.actorEmail,
    },
    subject:
      row.subjectKind === null || row.subjectId === null
        ? null
        : { kind: row.subjectKind, id: typedId(row.subjectKind, row.subjectId), email: row.subjectEmail },
    session_id: row.sessionId,
    ip: row.ip,
    user_agent: row.userAgent,
    details: row.details ?? {},
  };
}
