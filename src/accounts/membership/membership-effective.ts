import type { EntityManager } from 'typeorm';
import type { Grant } from '../../access/permissions/permission';
import { effectivePermissionsColumn, memberRolesColumn, parseRoleRefs, type RoleRef } from '../roles/role-sql';

/**
 * The effective permissions (own and roles') and the roles of some members of a company, by employee id: what
 * GET /v1/users shows beside a page of {@link pageOfMembers}.
 */
export async function effectiveOfMembers(
  manager: EntityManager,
  companyId: number,
  employeeIds: readonly number[],
): Promise<Map<number, { permissions: Grant[]; roles: RoleRef[] }>> {
  if (employeeIds.length === 0) return new Map();
  const rows = await manager.query<Array<{ employee_id: number; permissions: Grant[]; roles: unknown }>>(
    `SELECT m.employee_id, ${effectivePermissionsColumn('m')} AS permissions, ${memberRolesColumn('m')} AS roles
       FROM membership m WHERE m.company_id = $1 AND m.employee_id = ANY($2::int[])`,
    [companyId, employeeIds],
  );
  return new Map(
    rows.map((row) => [row.employee_id, { permissions: row.permissions, roles: parseRoleRefs(row.roles) }]),
  );
}
