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

/** The id of the employee with this (normalized) e-mail, or null. */
export async function employeeIdOf(manager: EntityManager, email: string): Promise<number | null> {
  const [row] = await manager.query<Array<{ id: number }>>('SELECT id FROM employee WHERE lower(email) = $1', [email]);
  return row?.id ?? null;
}
