import type { EntityManager } from 'typeorm';
import { type ResealBatch, resealRows } from '../../platform/common/sealing/reseal-rows';
import type { SealedColumn } from '../../platform/keys/sealed-columns';

/**
 * The TOTP columns of the employee table (the sealed secret, when it was switched on, the last accepted time
 * step), for the second-factor check (src/identity/auth/mfa/) and the account's TOTP routes (src/staff/users/). Each runs
 * inside the caller's transaction.
 */

/** A pending secret; refused (no row changed) once TOTP is on. */
export async function startTotp(manager: EntityManager, employeeId: number, sealedSecret: string): Promise<void> {
  await manager.query(
    `UPDATE employee SET totp_secret = $2, totp_last_step = NULL WHERE id = $1 AND totp_enabled_at IS NULL`,
    [employeeId, sealedSecret],
  );
}

/** Whether a secret waits for confirmation and whether TOTP is on; locks the row until the transaction ends. */
export function lockTotpState(manager: EntityManager, employeeId: number): Promise<TotpState | undefined> {
  return readTotpState(manager, employeeId, ' FOR UPDATE');
}

/** The same, without a lock: a check before work that must happen outside the transaction. */
export function totpStateOf(manager: EntityManager, employeeId: number): Promise<TotpState | undefined> {
  return readTotpState(manager, employeeId, '');
}

type TotpState = { pending: boolean; on: boolean };

async function readTotpState(
  manager: EntityManager,
  employeeId: number,
  lock: ' FOR UPDATE' | '',
): Promise<TotpState | undefined> {
  const [row] = await manager.query<TotpState[]>(
    `SELECT totp_secret IS NOT NULL AS pending, totp_enabled_at IS NOT NULL AS on FROM employee WHERE id = $1${lock}`,
    [employeeId],
  );
  return row;
}

export async function enableTotp(manager: EntityManager, employeeId: number, now: Date): Promise<void> {
  await manager.query('UPDATE employee SET totp_enabled_at = $2 WHERE id = $1', [employeeId, now]);
}

export async function clearTotp(manager: EntityManager, employeeId: number): Promise<void> {
  await manager.query(
    'UPDATE employee SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = $1',
    [employeeId],
  );
}

/** The sealed secret (enrolled or pending), or null. */
export async function totpSecretOf(manager: EntityManager, employeeId: number): Promise<string | null> {
  const [row] = await manager.query<Array<{ totp_secret: string | null }>>(
    'SELECT totp_secret FROM employee WHERE id = $1',
    [employeeId],
  );
  return row?.totp_secret ?? null;
}

/**
 * Accepts time step `step` once: only a step later than the last accepted one changes the row, so two
 * instances racing with one code cannot both win. Stores `sealedSecret` (re-sealed under the current key).
 */
export async function acceptTotpStep(
  manager: EntityManager,
  employeeId: number,
  step: number,
  sealedSecret: string,
): Promise<boolean> {
  const updated = await manager.query<Array<{ id: number }>>(
    // A CTE, because TypeORM answers a bare UPDATE … RETURNING as [rows, count].
    `WITH accepted AS (
       UPDATE employee SET totp_last_step = $2, totp_secret = $3
        WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id)
     SELECT id FROM accepted`,
    [employeeId, step, sealedSecret],
  );
  return updated.length === 1;
}

/**
 * One batch of re-encryption (src/platform/keys/sealed-columns.ts): the next `limit` secrets after employee `afterId`
 * not sealed with `currentPrefix`, each replaced by `reseal`'s value (null: left as it is). Rows are locked and
 * others' locked rows skipped, and each write checks the value is still the one read, so two instances starting
 * together neither redo nor undo each other's work. Answers the last id seen (null: nothing left).
 */
export async function resealTotpSecrets(
  manager: EntityManager,
  currentPrefix: string,
  afterId: number,
  limit: number,
  reseal: (sealed: string) => string | null,
): Promise<ResealBatch> {
  const rows = await manager.query<Array<{ id: number; totp_secret: string }>>(
    `SELECT id, totp_secret FROM employee
      WHERE id > $1 AND totp_secret IS NOT NULL AND left(totp_secret, length($2)) <> $2
      ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [afterId, currentPrefix, limit],
  );
  return resealRows(rows, { id: (row) => row.id, sealed: (row) => row.totp_secret }, reseal, (row, value) =>
    manager.query('UPDATE employee SET totp_secret = $3 WHERE id = $1 AND totp_secret = $2', [
      row.id,
      row.totp_secret,
      value,
    ]),
  );
}

/** The sealed TOTP secrets, re-encrypted at start by the keys module's resealer (EmployeeService carries the mark). */
export const TOTP_SECRETS: SealedColumn = {
  name: 'employee.totp_secret',
  purpose: 'totp',
  resealBatch: resealTotpSecrets,
};
