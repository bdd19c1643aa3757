import type { EntityManager } from 'typeorm';
import { escapeLike } from '../../platform/common/http/pagination';
import { companyJoin } from '../company/company-sql';
import { employeeJoin } from '../employee/employee-sql';
import { effectivePermissionsColumn } from '../roles/role-sql';
import type { Grant } from '../../access/permissions/permission';
import { Membership } from './membership.entity';

/**
 * What other folders change or read in the membership table, each inside the caller's transaction (its
 * EntityManager): the membership check of a token being issued, an invitation accepted, an employee created,
 * permissions replaced.
 */

/** What a login result says about the company and the employee of a member. */
export interface Member {
  company: { id: number; name: string };
  employee: { id: number; email: string; name: string };
}

/**
 * The membership check of a token being issued, with the names its login result shows, in one statement. The
 * membership row stays key-locked until the caller's transaction ends: a concurrent removal waits and then
 * blacklists the token issued here, instead of missing it.
 */
export async function findMember(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
): Promise<Member | null> {
  const [row] = await manager.query<Array<{ company_name: string; email: string; name: string }>>(
    `SELECT c.name AS company_name, e.email, e.name
       FROM membership m
       ${companyJoin('c', 'm.company_id')}
       ${employeeJoin('e', 'm.employee_id')}
      WHERE m.employee_id = $1 AND m.company_id = $2 AND m.suspended_at IS NULL
        FOR KEY SHARE OF m`,
    [employeeId, companyId],
  );
  if (!row) return null;
  return {
    company: { id: companyId, name: row.company_name },
    employee: { id: employeeId, email: row.email, name: row.name },
  };
}

/** Adds a membership; false when the employee already belongs to the company (nothing changes then). */
export async function addMembership(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  permissions: readonly string[],
): Promise<boolean> {
  const inserted = await manager.query<Array<{ employee_id: number }>>(
    `WITH inserted AS (
       INSERT INTO membership (employee_id, company_id, permissions) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING employee_id)
     SELECT employee_id FROM inserted`,
    [employeeId, companyId, permissions],
  );
  return inserted.length === 1;
}

/**
 * How many members of the company hold `permission` (the `*` of the last-owner rule). A suspended member holds
 * nothing while suspended, so is not counted: the last active `*` holder is the one that must stay.
 */
export async function countHolders(manager: EntityManager, companyId: number, permission: Grant): Promise<number> {
  const [{ holders }] = await manager.query<Array<{ holders: number }>>(
    `SELECT count(*)::int AS holders FROM membership
      WHERE company_id = $1 AND $2 = ANY(permissions) AND suspended_at IS NULL`,
    [companyId, permission],
  );
  return holders;
}

/** A membership with its employee, for a change of its permissions; null when there is none. */
export function findMembershipWithEmployee(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
): Promise<Membership | null> {
  return manager.findOne(Membership, { where: { employeeId, companyId }, relations: { employee: true } });
}

export async function setPermissions(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  permissions: Grant[],
): Promise<void> {
  await manager.update(Membership, { employeeId, companyId }, { permissions });
}

/** A page of a company's members with their accounts, by employee id; `q` and `mfa` filter (GET /v1/users). */
export function pageOfMembers(
  manager: EntityManager,
  companyId: number,
  filter: { q?: string; mfa?: 'true' | 'false'; offset: number; limit: number },
): Promise<[Membership[], number]> {
  const builder = manager
    .getRepository(Membership)
    .createQueryBuilder('membership')
    .innerJoinAndSelect('membership.employee', 'employee')
    .where('membership.companyId = :companyId', { companyId });
  if (filter.q !== undefined) {
    builder.andWhere('(employee.email ILIKE :pattern OR employee.name ILIKE :pattern)', {
      pattern: `%${escapeLike(filter.q)}%`,
    });
  }
  if (filter.mfa) builder.andWhere(`employee.totpEnabledAt IS ${filter.mfa === 'true' ? 'NOT NULL' : 'NULL'}`);
  return builder.orderBy('membership.employeeId', 'ASC').offset(filter.offset).limit(filter.limit).getManyAndCount();
}

/** Every member of a company with their permissions, for the operator's list. */
export function listCompanyMembers(
  manager: EntityManager,
  companyId: number,
): Promise<Array<{ id: number; email: string; name: string; permissions: Grant[]; mfa: boolean }>> {
  return manager.query(
    `SELECT e.id, e.email, e.name, m.permissions, e.totp_enabled_at IS NOT NULL AS mfa
       FROM membership m ${employeeJoin('e', 'm.employee_id')}
      WHERE m.company_id = $1 ORDER BY e.id`,
    [companyId],
  );
}

/** A member as SCIM provisioning sees it (src/staff/scim/): the account, the membership's state, how many companies. */
export interface ProvisionedMember {
  employeeId: number;
  email: string;
  name: string;
  /** Effective: its own and its roles'. */
  permissions: Grant[];
  /** Its own alone (the last-`*`-holder rule counts these). */
  ownPermissions: Grant[];
  suspended: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** How many companies the account belongs to, this one included (suspended memberships too). */
  companies: number;
}

interface ProvisionedRow {
  employee_id: number;
  email: string;
  name: string;
  permissions: Grant[];
  own_permissions: Grant[];
  suspended: boolean;
  created_at: Date;
  updated_at: Date;
  companies: number;
  total: number;
}

const PROVISIONED_COLUMNS = `m.employee_id, e.email, e.name, ${effectivePermissionsColumn('m')} AS permissions,
       m.permissions AS own_permissions, m.suspended_at IS NOT NULL AS suspended,
       m.created_at, e.updated_at,
       (SELECT count(*)::int FROM membership o WHERE o.employee_id = m.employee_id) AS companies`;

const toProvisioned = (row: ProvisionedRow): ProvisionedMember => ({
  employeeId: row.employee_id,
  email: row.email,
  name: row.name,
  permissions: row.permissions,
  ownPermissions: row.own_permissions,
  suspended: row.suspended,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  companies: row.companies,
});

/** One member of the company, suspended or not; `lock` holds the membership row until the transaction ends. */
export async function findProvisionedMember(
  manager: EntityManager,
  companyId: number,
  employeeId: number,
  lock = false,
): Promise<ProvisionedMember | null> {
  const [row] = await manager.query<ProvisionedRow[]>(
    `SELECT ${PROVISIONED_COLUMNS}, 0 AS total
       FROM membership m ${employeeJoin('e', 'm.employee_id')}
      WHERE m.company_id = $1 AND m.employee_id = $2 ${lock ? 'FOR UPDATE OF m' : ''}`,
    [companyId, employeeId],
  );
  return row ? toProvisioned(row) : null;
}

/** A page of the company's members by employee id, suspended ones included; `email` matches exactly (any case). */
export async function pageOfProvisionedMembers(
  manager: EntityManager,
  companyId: number,
  page: { email?: string; offset: number; limit: number },
): Promise<{ members: ProvisionedMember[]; total: number }> {
  const email = page.email?.trim().toLowerCase() ?? null;
  const rows = await manager.query<ProvisionedRow[]>(
    `SELECT ${PROVISIONED_COLUMNS}, count(*) OVER ()::int AS total
       FROM membership m ${employeeJoin('e', 'm.employee_id')}
      WHERE m.company_id = $1 AND ($2::text IS NULL OR lower(e.email) = $2::text)
      ORDER BY m.employee_id OFFSET $3 LIMIT $4`,
    [companyId, email, page.offset, page.limit],
  );
  if (rows.length === 0 && (page.offset > 0 || page.limit === 0)) {
    const [{ total }] = await manager.query<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM membership m ${employeeJoin('e', 'm.employee_id')}
        WHERE m.company_id = $1 AND ($2::text IS NULL OR lower(e.email) = $2::text)`,
      [companyId, email],
    );
    return { members: [], total };
  }
  return { members: rows.map(toProvisioned), total: rows[0]?.total ?? 0 };
}

/**
 * Suspends (`suspended: true`) or restores a membership; false when it was already so (nothing changes then).
 * The caller ends what the member held in the company (sessions, API keys) in the same transaction.
 */
export async function setMembershipSuspended(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  suspended: boolean,
  now: Date,
): Promise<boolean> {
  const changed = await manager.query<Array<{ employee_id: number }>>(
    `WITH changed AS (
       UPDATE membership SET suspended_at = $3
        WHERE employee_id = $1 AND company_id = $2 AND (suspended_at IS NULL) = $4 RETURNING employee_id)
     SELECT employee_id FROM changed`,
    [employeeId, companyId, suspended ? now : null, suspended],
  );
  return changed.length === 1;
}
