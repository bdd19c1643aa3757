import type { EntityManager } from 'typeorm';

/** What other folders change in the api_key table, inside the caller's transaction (its EntityManager). */

/** Revokes every live key of an employee in one company (the employee leaves it). */
export async function revokeKeysIn(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  now: Date,
): Promise<void> {
  await manager.query(
    'UPDATE api_key SET revoked_at = $3 WHERE employee_id = $1 AND company_id = $2 AND revoked_at IS NULL',
    [employeeId, companyId, now],
  );
}

/** The company an API key (its id) belongs to, revoked or not; null when there is no such key. */
export async function companyOfKey(manager: EntityManager, id: string): Promise<number | null> {
  const rows = (await manager.query('SELECT company_id FROM api_key WHERE id = $1', [id])) as Array<{
    company_id: number;
  }>;
  return rows.length === 0 ? null : Number(rows[0].company_id);
}
