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
