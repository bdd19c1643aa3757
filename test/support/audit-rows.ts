import { DataSource } from 'typeorm';
import type { TestApp } from './test-app';

export interface AuditRow {
  type: string;
  actor_kind: string;
  actor_id: string | null;
  subject_kind: string | null;
  subject_id: string | null;
  subject_email: string | null;
  details: Record<string, unknown>;
}

/** The security events stored for a company (oldest first), optionally of one type, read from the table. */
export async function auditRows(t: TestApp, companyId: number, type?: string): Promise<AuditRow[]> {
  return t.app.get(DataSource).query(
    `SELECT type, actor_kind, actor_id, subject_kind, subject_id, subject_email, details FROM audit_events
        WHERE company_id = $1 AND ($2::text IS NULL OR type = $2) ORDER BY id`,
    [companyId, type ?? null],
  );
}
