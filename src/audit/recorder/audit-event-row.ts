import type { AuditEventInput } from './audit-event';
import type { AuditEvent } from './audit-event.entity';

export const USER_AGENT_MAX_LENGTH = 256;

/** At most 256 characters, never ending in half of a surrogate pair. */
export function cutUserAgent(userAgent: string | null | undefined): string | null {
  if (userAgent === null || userAgent === undefined) return null;
  if (userAgent.length <= USER_AGENT_MAX_LENGTH) return userAgent;
  const cut = userAgent.slice(0, USER_AGENT_MAX_LENGTH);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

export function toRow(input: AuditEventInput, occurredAt: Date): unknown[] {
  const subject = input.subject ?? null;
  return [
    input.companyId,
    occurredAt,
    input.type,
    input.actor.kind,
    input.actor.id === null ? null : String(input.actor.id),
    input.actor.email,
    subject?.kind ?? null,
    subject === null ? null : String(subject.id),
    subject?.email ?? null,
    input.sessionId ?? null,
    input.ip ?? null,
    cutUserAgent(input.userAgent),
    JSON.stringify(input.details ?? {}),
  ];
}

export function toEntity(input: AuditEventInput, occurredAt: Date, id: string): AuditEvent {
  const subject = input.subject ?? null;
  return {
    id: String(id),
    companyId: input.companyId,
    occurredAt,
    type: input.type,
    actorKind: input.actor.kind,
    actorId: input.actor.id === null ? null : String(input.actor.id),
    actorEmail: input.actor.email,
    subjectKind: subject?.kind ?? null,
    subjectId: subject === null ? null : String(subject.id),
    subjectEmail: subject?.email ?? null,
    sessionId: input.sessionId ?? null,
    ip: input.ip ?? null,
    userAgent: cutUserAgent(input.userAgent),
    details: input.details ?? {},
  };
}
