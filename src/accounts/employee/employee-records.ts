import type { EntityManager } from 'typeorm';
import { Employee } from './employee.entity';

/**
 * What other folders change or read in the employee table, each inside the caller's transaction (its
 * EntityManager), so a password change and the sessions it ends commit together.
 */

export async function setPasswordHash(
  manager: EntityManager,
  employeeId: number,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await manager.query('UPDATE employee SET password_hash = $2, updated_at = $3 WHERE id = $1', [
    employeeId,
    passwordHash,
    now,
  ]);
}

/** Locks the employee's row until the transaction ends; null when there is no such employee. */
export async function lockEmployee(manager: EntityManager, employeeId: number): Promise<{ email: string } | null> {
  const [row] = await manager.query<Array<{ email: string }>>('SELECT email FROM employee WHERE id = $1 FOR UPDATE', [
    employeeId,
  ]);
  return row ?? null;
}

export function countEmployees(manager: EntityManager): Promise<number> {
  return manager.count(Employee);
}

/** A new employee from an already hashed password (the demo data); EmployeeService.create checks its input. */
export function insertEmployee(
  manager: EntityManager,
  employee: { email: string; name: string; passwordHash: string },
): Promise<Employee> {
  return manager.save(manager.create(Employee, employee));
}

/** Every employee, for the operator's list. */
export function listAllEmployees(
  manager: EntityManager,
): Promise<Array<{ id: number; email: string; name: string; mfa: boolean }>> {
  return manager.query(`SELECT id, email, name, totp_enabled_at IS NOT NULL AS mfa FROM employee ORDER BY id`);
}

/** The e-mail of each of these employees that exists, by id (an audit event names whom it concerns). */
export async function emailsOf(manager: EntityManager, employeeIds: readonly number[]): Promise<Map<number, string>> {
  if (employeeIds.length === 0) return new Map();
  const rows = await manager.query<Array<{ id: number; email: string }>>(
    'SELECT id, email FROM employee WHERE id = ANY($1::int[])',
    [[...new Set(employeeIds)]],
  );
  return new Map(rows.map((row) => [Number(row.id), row.email]));
}

/**
 * Each row with its employee's e-mail, as a join on the employee would give it: a row whose employee is gone is
 * left out. For rows another module has just read or changed, whose events name whom they concern.
 */
export async function withEmails<T extends { employee_id: number }>(
  manager: EntityManager,
  rows: readonly T[],
): Promise<Array<T & { email: string }>> {
  const emails = await emailsOf(
    manager,
    rows.map((row) => row.employee_id),
  );
  return rows.flatMap((row) => {
    const email = emails.get(Number(row.employee_id));
    return email === undefined ? [] : [{ ...row, email }];
  });
}

/** The id of the employee with this (normalized) e-mail, or null. */
export async function employeeIdOf(manager: EntityManager, email: string): Promise<number | null> {
  const [row] = await manager.query<Array<{ id: number }>>('SELECT id FROM employee WHERE lower(email) = $1', [email]);
  return row?.id ?? null;
}

/**
 * Changes an account's e-mail and/or display name (SCIM provisioning by the only company it belongs to). The
 * e-mail is stored lower-cased; false when another account already has it (nothing changes then).
 */
export async function updateEmployeeProfile(
  manager: EntityManager,
  employeeId: number,
  profile: { email: string; name: string },
  now: Date,
): Promise<boolean> {
  const email = profile.email.trim().toLowerCase();
  const [taken] = await manager.query<Array<{ id: number }>>(
    'SELECT id FROM employee WHERE lower(email) = $1 AND id <> $2',
    [email, employeeId],
  );
  if (taken) return false;
  await manager.query('UPDATE employee SET email = $2, name = $3, updated_at = $4 WHERE id = $1', [
    employeeId,
    email,
    profile.name,
    now,
  ]);
  return true;
}

/**
 * Not a PHC string: argon2 refuses to verify against it, so no password ever matches (a single sign-on account
 * created at its first login through its company's provider).
 */
export const NO_PASSWORD = '!no-password';

/** A new account without a password (JIT provisioning); its name defaults to the e-mail's local part. */
export function insertPasswordlessEmployee(
  manager: EntityManager,
  employee: { email: string; name: string | null },
): Promise<Employee> {
  const name = employee.name?.trim().slice(0, 100) || employee.email.split('@')[0];
  return manager.save(manager.create(Employee, { email: employee.email, name, passwordHash: NO_PASSWORD }));
}

/** Who an employee is, by id (a passkey's owner), or null. */
export async function employeeById(
  manager: EntityManager,
  id: number,
): Promise<{ id: number; email: string; name: string } | null> {
  const [row] = await manager.query<Array<{ id: number; email: string; name: string }>>(
    'SELECT id, email, name FROM employee WHERE id = $1',
    [id],
  );
  return row ?? null;
}
