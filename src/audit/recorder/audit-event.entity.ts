import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AuditActorKind, AuditEventType, AuditSubject } from './audit-event';

/**
 * One row of `audit_events`. Actor and subject ids are text because an actor is an employee (integer id) or an
 * API key (UUID); the kind says which. Indexes: see the migration (the company's newest-first listing and its
 * filters, and `occurred_at` alone for retention).
 */
@Entity({ name: 'audit_events' })
export class AuditEvent {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @Column({ type: 'text' })
  type: AuditEventType;

  @Column({ name: 'actor_kind', type: 'text' })
  actorKind: AuditActorKind;

  @Column({ name: 'actor_id', type: 'text', nullable: true })
  actorId: string | null;

  @Column({ name: 'actor_email', type: 'text', nullable: true })
  actorEmail: string | null;

  @Column({ name: 'subject_kind', type: 'text', nullable: true })
  subjectKind: AuditSubject['kind'] | null;

  @Column({ name: 'subject_id', type: 'text', nullable: true })
  subjectId: string | null;

  @Column({ name: 'subject_email', type: 'text', nullable: true })
  subjectEmail: string | null;

  @Column({ name: 'session_id', type: 'uuid', nullable: true })
  sessionId: string | null;

  @Column({ type: 'text', nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'text', nullable: true })
  userAgent: string | null;

  @Column({ type: 'jsonb', default: {} })
  details: Record<string, unknown>;
}
