import type { EntityManager } from 'typeorm';

/** What a login result says about the company and the employee of a session's token. */
export interface SessionMember {
  company: { id: number; name: string };
  employee: { id: number; email: string; name: string };
}

/**
 * The membership check of a token issued for an existing session, with the names its login result shows, in
 * one statement. The membership row stays key-locked until the caller's transaction ends: a concurrent removal
 * waits and then blacklists the token issued here, instead of missing it.
 */
export async function findSessionMember(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
): Promise<SessionMember | null> {
  const [row] = await manager.query<Array<{ company_name: string; email: string; name: string }>>(
    `SELECT company.name AS company_name, employee.email, employee.name
       FROM membership
       JOIN company ON company.id = membership.company_id
       JOIN employee ON employee.id = membership.employee_id
      WHERE membership.employee_id = $1 AND membership.company_id = $2
        FOR KEY SHARE OF membership`,
    [employeeId, companyId],
  );
  if (!row) return null;
  return {
    company: { id: companyId, name: row.company_name },
    employee: { id: employeeId, email: row.email, name: row.name },
  };
}

/** A company's id and name, for the login result of a new session (whose membership the caller checked). */
export async function companyRef(manager: EntityManager, companyId: number): Promise<{ id: number; name: string }> {
  const [row] = await manager.query<Array<{ name: string }>>('SELECT name FROM company WHERE id = $1', [companyId]);
  if (!row) throw new Error(`company ${companyId} not found`);
  return { id: companyId, name: row.name };
}
