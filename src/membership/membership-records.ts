import type { EntityManager } from 'typeorm';
import { escapeLike } from '../common/http/pagination';
import { companyJoin } from '../company/company-sql';
import { employeeJoin } from '../employee/employee-sql';
import type { Grant } from '../permissions/permission';
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
      WHERE m.employee_id = $1 AND m.company_id = $2
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

/** How many members of the company hold `permission` (the `*` of the last-owner rule). */
export async function countHolders(manager: EntityManager, companyId: number, permission: Grant): Promise<number> {
  const [{ holders }] = await manager.query<Array<{ holders: number }>>(
    'SELECT count(*)::int AS holders FROM membership WHERE company_id = $1 AND $2 = ANY(permissions)',
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
