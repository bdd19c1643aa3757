import type { EntityManager } from 'typeorm';
import { NO_PASSWORD } from '../employee/employee-records';
import { employeeFrom } from '../employee/employee-sql';
import { effectivePermissionsColumn } from '../roles/role-sql';
import type { Grant } from '../../access/permissions/permission';

/**
 * What a grant or an attachment needs to know of a membership, inside the caller's transaction: whether whoever
 * grants still holds what they grant, and whether an account is already someone's (docs/contract.md "Whose
 * people a company may speak for").
 */

/** What the employee holds in the company now (its own permissions and its roles'): null when no member there (or suspended, or no employee). */
export async function activePermissionsOf(
  manager: EntityManager,
  employeeId: number | null,
  companyId: number,
): Promise<Grant[] | null> {
  if (employeeId === null) return null;
  const [row] = await manager.query<Array<{ permissions: Grant[] }>>(
    `SELECT ${effectivePermissionsColumn('m')} AS permissions FROM membership m
      WHERE m.employee_id = $1 AND m.company_id = $2 AND m.suspended_at IS NULL`,
    [employeeId, companyId],
  );
  return row?.permissions ?? null;
}

/**
 * Whether an account is already someone's, seen from `companyId`: it has a password, or belongs to another
 * company (suspended memberships too). docs/contract.md: only such accounts need a proven domain to be attached.
 */
export async function isClaimedAccount(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
): Promise<boolean> {
  const [row] = await manager.query<Array<{ claimed: boolean }>>(
    `SELECT e.password_hash <> $3
            OR EXISTS (SELECT 1 FROM membership m WHERE m.employee_id = e.id AND m.company_id <> $2) AS claimed
       ${employeeFrom('e')} WHERE e.id = $1`,
    [employeeId, companyId, NO_PASSWORD],
  );
  return row?.claimed ?? false;
}
