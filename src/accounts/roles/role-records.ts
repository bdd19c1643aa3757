import type { EntityManager } from 'typeorm';
import type { Grant } from '../../access/permissions/permission';
import { employeeJoin } from '../employee/employee-sql';
import { MemberRole, Role } from './role.entity';

/**
 * What other folders change or read in the role and member_role tables, each inside the caller's transaction
 * (its EntityManager). Every operation takes the company: a role id of another company is no role here.
 */

/** A role with how many members hold it. */
export interface RoleWithHolders extends Role {
  holders: number;
}

const HOLDERS = `(SELECT count(*)::int FROM member_role mr WHERE mr.role_id = r.id) AS holders`;

interface RoleRow {
  id: number;
  company_id: number;
  name: string;
  permissions: Grant[];
  created_at: Date;
  updated_at: Date;
  holders: number;
}

const toRole = (row: RoleRow): RoleWithHolders => ({
  id: row.id,
  companyId: row.company_id,
  name: row.name,
  permissions: row.permissions,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  holders: row.holders,
});

/** The company's roles by id; `name` keeps only the one of that name (any case). */
export async function listRoles(
  manager: EntityManager,
  companyId: number,
  filter: { name?: string; offset?: number; limit?: number } = {},
): Promise<{ roles: RoleWithHolders[]; total: number }> {
  const rows = await manager.query<Array<RoleRow & { total: number }>>(
    `SELECT r.*, ${HOLDERS}, count(*) OVER ()::int AS total FROM role r
      WHERE r.company_id = $1 AND ($2::text IS NULL OR lower(r.name) = lower($2::text))
      ORDER BY r.id OFFSET $3 LIMIT $4`,
    [companyId, filter.name ?? null, filter.offset ?? 0, filter.limit ?? null],
  );
  // An empty page (past the end, or `count=0`) carries no row to read the total from: count it alone.
  if (rows.length === 0 && ((filter.offset ?? 0) > 0 || filter.limit === 0)) {
    const [{ total }] = await manager.query<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM role r
        WHERE r.company_id = $1 AND ($2::text IS NULL OR lower(r.name) = lower($2::text))`,
      [companyId, filter.name ?? null],
    );
    return { roles: [], total };
  }
  return { roles: rows.map(toRole), total: rows[0]?.total ?? 0 };
}

/** One role of the company; `lock` holds its row until the transaction ends. */
export async function findRole(
  manager: EntityManager,
  companyId: number,
  id: number,
  lock = false,
): Promise<RoleWithHolders | null> {
  const [row] = await manager.query<RoleRow[]>(
    `SELECT r.*, ${HOLDERS} FROM role r WHERE r.company_id = $1 AND r.id = $2 ${lock ? 'FOR UPDATE OF r' : ''}`,
    [companyId, id],
  );
  return row ? toRole(row) : null;
}

/** Whether another role of the company (not `exceptId`) has this name, in any case. */
export async function roleNameTaken(
  manager: EntityManager,
  companyId: number,
  name: string,
  exceptId: number | null = null,
): Promise<boolean> {
  const rows = await manager.query<unknown[]>(
    `SELECT 1 FROM role WHERE company_id = $1 AND lower(name) = lower($2) AND ($3::int IS NULL OR id <> $3::int)`,
    [companyId, name, exceptId],
  );
  return rows.length > 0;
}

/** A new role; the caller has checked the name (under the company's change lock). */
export async function insertRole(
  manager: EntityManager,
  companyId: number,
  input: { name: string; permissions: Grant[] },
  now: Date,
): Promise<RoleWithHolders> {
  const [row] = await manager.query<RoleRow[]>(
    `INSERT INTO role (company_id, name, permissions, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     RETURNING *, 0 AS holders`,
    [companyId, input.name, input.permissions, now],
  );
  return toRole(row);
}

/** Renames a role and/or replaces its permissions. */
export async function updateRole(
  manager: EntityManager,
  companyId: number,
  id: number,
  change: { name: string; permissions: Grant[] },
  now: Date,
): Promise<void> {
  await manager.query(
    'UPDATE role SET name = $3, permissions = $4, updated_at = $5 WHERE company_id = $1 AND id = $2',
    [companyId, id, change.name, change.permissions, now],
  );
}

/** Deletes a role nobody holds; false when it is held (nothing changes then). */
export async function deleteUnheldRole(manager: EntityManager, companyId: number, id: number): Promise<boolean> {
  const deleted = await manager.query<Array<{ id: number }>>(
    `WITH deleted AS (
       DELETE FROM role r WHERE r.company_id = $1 AND r.id = $2
          AND NOT EXISTS (SELECT 1 FROM member_role mr WHERE mr.role_id = r.id) RETURNING r.id)
     SELECT id FROM deleted`,
    [companyId, id],
  );
  return deleted.length === 1;
}

/** The employees holding a role, by id. */
export async function holdersOf(manager: EntityManager, companyId: number, roleId: number): Promise<number[]> {
  const rows = await manager.query<Array<{ employee_id: number }>>(
    'SELECT employee_id FROM member_role WHERE company_id = $1 AND role_id = $2 ORDER BY employee_id',
    [companyId, roleId],
  );
  return rows.map((row) => row.employee_id);
}

/** The roles of the company among `ids` (ids of other companies, or of none, are left out), by id. */
export async function rolesAmong(
  manager: EntityManager,
  companyId: number,
  ids: readonly number[],
): Promise<RoleWithHolders[]> {
  if (ids.length === 0) return [];
  const rows = await manager.query<RoleRow[]>(
    `SELECT r.*, ${HOLDERS} FROM role r WHERE r.company_id = $1 AND r.id = ANY($2::int[]) ORDER BY r.id`,
    [companyId, ids],
  );
  return rows.map(toRole);
}

/** The ids of the roles a member holds in the company, by id. */
export async function roleIdsOf(manager: EntityManager, employeeId: number, companyId: number): Promise<number[]> {
  const rows = await manager.query<Array<{ role_id: number }>>(
    'SELECT role_id FROM member_role WHERE employee_id = $1 AND company_id = $2 ORDER BY role_id',
    [employeeId, companyId],
  );
  return rows.map((row) => row.role_id);
}

/** Gives a member exactly these roles of its company (the caller checked they are the company's). */
export async function setMemberRoles(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  roleIds: readonly number[],
): Promise<void> {
  await manager.query(
    'DELETE FROM member_role WHERE employee_id = $1 AND company_id = $2 AND NOT (role_id = ANY($3::int[]))',
    [employeeId, companyId, roleIds],
  );
  if (roleIds.length === 0) return;
  await manager
    .createQueryBuilder()
    .insert()
    .into(MemberRole)
    .values(roleIds.map((roleId) => ({ employeeId, companyId, roleId })))
    .orIgnore()
    .execute();
}

/** Adds (`hold: true`) or removes a holder of a role; false when it was already so. */
export async function setHolder(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  roleId: number,
  hold: boolean,
): Promise<boolean> {
  const changed = await manager.query<unknown[]>(
    hold
      ? `WITH c AS (INSERT INTO member_role (employee_id, company_id, role_id) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING RETURNING role_id) SELECT role_id FROM c`
      : `WITH c AS (DELETE FROM member_role WHERE employee_id = $1 AND company_id = $2 AND role_id = $3
           RETURNING role_id) SELECT role_id FROM c`,
    [employeeId, companyId, roleId],
  );
  return changed.length === 1;
}

/** The holders of each of these roles of the company, with their e-mails, by employee id (SCIM Groups' members). */
export async function holdersWithEmails(
  manager: EntityManager,
  companyId: number,
  roleIds: readonly number[],
): Promise<Map<number, Array<{ employeeId: number; email: string }>>> {
  const holders = new Map(roleIds.map((id) => [id, [] as Array<{ employeeId: number; email: string }>]));
  if (roleIds.length === 0) return holders;
  const rows = await manager.query<Array<{ role_id: number; employee_id: number; email: string }>>(
    `SELECT mr.role_id, mr.employee_id, e.email FROM member_role mr ${employeeJoin('e', 'mr.employee_id')}
      WHERE mr.company_id = $1 AND mr.role_id = ANY($2::int[]) ORDER BY mr.employee_id`,
    [companyId, roleIds],
  );
  for (const row of rows) holders.get(row.role_id)?.push({ employeeId: row.employee_id, email: row.email });
  return holders;
}
