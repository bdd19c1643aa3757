import type { EntityManager } from 'typeorm';
import { NO_PASSWORD } from '../employee/employee-records';
import { employeeFrom } from '../employee/employee-sql';
import { membershipJoin } from './membership-sql';
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

/** An account and the companies it belongs to (suspended memberships too), each with what it holds there. */
export interface AccountMemberships {
  employeeId: number;
  email: string;
  memberships: Array<{ companyId: number; permissions: Grant[] }>;
}

/**
 * The account `account` names (by id, or by normalized e-mail) with its memberships; null when there is no such
 * account or it belongs to no company. `lock` holds the account's row until the caller's transaction ends, so a
 * membership added meanwhile waits for the caller's decision.
 */
export async function accountMemberships(
  manager: EntityManager,
  account: { employeeId: number } | { email: string },
  lock: 'lock' | 'no-lock' = 'no-lock',
): Promise<AccountMemberships | null> {
  const rows = await manager.query<Array<{ id: number; email: string; company_id: number; permissions: Grant[] }>>(
    `SELECT e.id, e.email, m.company_id, ${effectivePermissionsColumn('m')} AS permissions
       ${employeeFrom('e')} ${membershipJoin('m', 'e.id', null, 'JOIN', 'include')}
      WHERE ${'employeeId' in account ? 'e.id = $1' : 'lower(e.email) = $1'}
      ORDER BY m.company_id${lock === 'lock' ? ' FOR UPDATE OF e' : ''}`,
    ['employeeId' in account ? account.employeeId : account.email],
  );
  if (rows.length === 0) return null;
  return {
    employeeId: Number(rows[0].id),
    email: rows[0].email,
    memberships: rows.map((row) => ({ companyId: Number(row.company_id), permissions: row.permissions })),
  };
}
