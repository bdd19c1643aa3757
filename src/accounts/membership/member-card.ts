import type { EntityManager } from 'typeorm';
import type { Grant } from '../../access/permissions/permission';
import type { CredentialPolicy } from '../../access/rules/principal';
import { type CompanyPolicyJson, companyPolicyColumn, credentialPolicyOf } from '../company-policy/company-policy-sql';
import { companyJoin } from '../company/company-sql';
import { employeeFrom } from '../employee/employee-sql';
import { effectivePermissionsColumn, memberRolesColumn, parseRoleRefs, type RoleRef } from '../roles/role-sql';
import { membershipJoin } from './membership-sql';

/**
 * Who a credential acts as, read from the accounts area in one statement: the account, the company, the company's
 * policy and what the account holds there now. A credential strategy reads its own table first and then this, so
 * no statement outside accounts names an accounts table (docs/adding-a-feature-module.md, "One way to the
 * database").
 */
export interface MemberCard {
  employee: { id: number; email: string; name: string };
  company: { id: number; name: string };
  totp: boolean;
  /** What the company's policy asks of every request, undefined when nothing in it applies to one. */
  policy: CredentialPolicy | undefined;
  /** Its own permissions and its roles'; null when the account is no active member (removed, suspended). */
  permissions: Grant[] | null;
  roles: RoleRef[];
}

const CARD = `SELECT e.email, e.name, e.totp_enabled_at IS NOT NULL AS totp, c.name AS company_name,
       ${companyPolicyColumn('c.id')}, ${effectivePermissionsColumn('m')} AS permissions,
       ${memberRolesColumn('m')} AS roles
  ${employeeFrom('e')}
  ${companyJoin('c', '$2::int')}
  ${membershipJoin('m', 'e.id', 'c.id', 'LEFT JOIN')}
 WHERE e.id = $1`;

/** The card of `employeeId` in `companyId`; null when either no longer exists. */
export async function memberCard(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
): Promise<MemberCard | null> {
  const [row] = await manager.query<
    Array<{
      email: string;
      name: string;
      totp: boolean;
      company_name: string;
      company_policy: CompanyPolicyJson | string | null;
      permissions: Grant[] | null;
      roles: unknown;
    }>
  >(CARD, [employeeId, companyId]);
  if (!row) return null;
  return {
    employee: { id: employeeId, email: row.email, name: row.name },
    company: { id: companyId, name: row.company_name },
    totp: row.totp === true,
    policy: credentialPolicyOf(row.company_policy),
    permissions: row.permissions,
    roles: parseRoleRefs(row.roles),
  };
}
