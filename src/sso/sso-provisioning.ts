import { type DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import type { AuditRecorder } from '../audit/audit-recorder.service';
import type { ClientInfo } from '../common/http/client-info';
import { employeeIdOf, insertPasswordlessEmployee } from '../employee/employee-records';
import { addMembership, findMember } from '../membership/membership-records';
import type { SsoConnection } from './sso-connections';

/**
 * The account behind a person the provider vouched for, inside the caller's transaction: a member of the
 * company as is; otherwise, with JIT on, the account (without a password, when new) and its membership with the
 * connection's JIT permissions are created, with their events; with JIT off, null (error_company_not_member).
 */
export async function provision(
  manager: EntityManager,
  audit: AuditRecorder,
  connection: SsoConnection,
  person: { email: string; name: string | null },
  client: ClientInfo,
): Promise<number | null> {
  const existing = await employeeIdOf(manager, person.email);
  if (existing !== null && (await findMember(manager, existing, connection.companyId))) return existing;
  if (!connection.jit.enabled) return null;
  const employeeId = existing ?? (await insertPasswordlessEmployee(manager, person)).id;
  await addMembership(manager, employeeId, connection.companyId, connection.jit.permissions);
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
    { ...context, type: 'membership.added', details: { permissions: connection.jit.permissions, method: 'sso' } },
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
