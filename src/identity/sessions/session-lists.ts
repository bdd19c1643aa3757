import type { EntityManager } from 'typeorm';

export interface LiveSessionRow {
  id: string;
  company_id: number;
  created_at: Date;
  last_used_at: Date;
  method: string;
  ip: string | null;
  user_agent: string | null;
}

/** An employee's live sessions (those not ended), oldest first, with the company each one works in now. */
export function liveSessionsOf(manager: EntityManager, employeeId: number): Promise<LiveSessionRow[]> {
  return manager.query(
    `SELECT id, company_id, created_at, last_used_at, method, ip, user_agent FROM login_session
      WHERE employee_id = $1 AND ended_at IS NULL ORDER BY created_at, id`,
    [employeeId],
  );
}
