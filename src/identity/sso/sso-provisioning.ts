import { type DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import type { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { employeeIdOf, insertPasswordlessEmployee } from '../../accounts/employee/employee-records';
import { activePermissionsOf } from '../../accounts/membership/membership-grants';
import { addMembership, findMember } from '../../accounts/membership/membership-records';
import { type Grant, intersectGrants } from '../../access/permissions/permission';
import type { LoginPolicy } from '../sessions/login-policy';
import { lastEditorOf, type SsoConnection } from './sso-connections';

/**
 * What the connection's JIT (and SCIM, provisioning-permissions.ts) gives a new member now: its JIT permissions,
 * never more than the connection's last editor holds in the company at this moment, and none when that editor is
 * unknown or gone (docs/contract.md "Nobody grants more than they hold").
 */
export async function jitGrantNow(manager: EntityManager, connection: SsoConnection): Promise<Grant[]> {
  const editor = await lastEditorOf(manager, connection.companyId);
  const held = await activePermissionsOf(manager, editor, connection.companyId);
  return intersectGrants(connection.jit.permissions, held ?? []);
}

/**
 * The account behind a person the provider vouched for, inside the caller's transaction: a member of the
 * company as is; otherwise, with JIT on, the account (without a password, when new) and its membership with
 * {@link jitGrantNow}, with their events. Null (error_company_not_member) with JIT off, and for an existing account
 * the company may not attach (the login policy: someone's account, of a domain the company has not proven).
 */
export async function provision(
  manager: EntityManager,
  audit: AuditRecorder,
  policy: LoginPolicy,
  connection: SsoConnection,
  person: { email: string; name: string | null },
  client: ClientInfo,
): Promise<number | null> {
  const existing = await employeeIdOf(manager, person.email);
  if (existing !== null && (await findMember(manager, existing, connection.companyId))) return existing;
  if (!connection.jit.enabled) return null;
  if (
    existing !== null &&
    !(await policy.mayAttach(manager, connection.companyId, { id: existing, email: person.email }))
  ) {
    return null;
  }
  const employeeId = existing ?? (await insertPasswordlessEmployee(manager, person)).id;
  const permissions = await jitGrantNow(manager, connection);
  if (!(await addMembership(manager, employeeId, connection.companyId, permissions))) {
    // Another sign-in of the same person committed the membership first; a suspended one is no way back in.
    return (await findMember(manager, employeeId, connection.companyId)) ? employeeId : null;
  }
  const actor = { kind: 'employee' as const, id: employeeId, email: person.email };
  const context = {
    companyId: connection.companyId,
    actor,
    subject: actor,
    ip: client.ip,
    userAgent: client.userAgent,
  };
  await audit.record(manager, [
    ...(existing === null ? [{ ...context, type: 'employee.created' as const, details: { method: 'sso' } }] : []),
    { ...context, type: 'membership.added', details: { permissions, method: 'sso' } },
  ]);
  return employeeId;
}

const isUniqueViolation = (error: unknown): boolean =>
  error instanceof QueryFailedError && (error.driverError as { code?: string } | undefined)?.code === '23505';

/**
 * `work` in a transaction of its own, run once more when it lost a race on a unique key: two first sign-ins of
 * one new person at the same moment both try to create the account (or the membership); the loser's second run
 * finds what the winner committed and goes on as for an existing member, instead of failing.
 */
export async function inTransactionRetryingRace<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  try {
    return await dataSource.transaction(work);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return dataSource.transaction(work);
  }
}
