import type { EntityManager } from 'typeorm';

export interface PasskeyRow {
  id: string;
  employee_id: number;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export async function insertPasskey(
  manager: EntityManager,
  row: Omit<PasskeyRow, 'last_used_at' | 'counter'> & { counter: number },
): Promise<boolean> {
  const inserted = await manager.query<Array<{ id: string }>>(
    `INSERT INTO passkey (id, employee_id, credential_id, public_key, counter, transports, name, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8) ON CONFLICT (credential_id) DO NOTHING RETURNING id`,
    [
      row.id,
      row.employee_id,
      row.credential_id,
      row.public_key,
      row.counter,
      JSON.stringify(row.transports),
      row.name,
      row.created_at,
    ],
  );
  return inserted.length > 0;
}

export function passkeysOf(manager: EntityManager, employeeId: number): Promise<PasskeyRow[]> {
  return manager.query('SELECT * FROM passkey WHERE employee_id = $1 ORDER BY created_at, id', [employeeId]);
}

export async function passkeyByCredentialId(manager: EntityManager, credentialId: string): Promise<PasskeyRow | null> {
  const rows: PasskeyRow[] = await manager.query('SELECT * FROM passkey WHERE credential_id = $1', [credentialId]);
  return rows[0] ?? null;
}

/** Answers the removed passkey's name, or null when the employee has no passkey with this id. */
export async function deletePasskey(manager: EntityManager, employeeId: number, id: string): Promise<string | null> {
  const rows = await manager.query<Array<{ name: string }>>(
    `WITH removed AS (DELETE FROM passkey WHERE id = $1 AND employee_id = $2 RETURNING name) SELECT name FROM removed`,
    [id, employeeId],
  );
  return rows[0]?.name ?? null;
}

/**
 * A verified use: the new counter and the time, only if the counter is still the one the check read, so two
 * concurrent uses of one signature cannot both pass. False when another use got there first.
 */
export async function recordPasskeyUse(
  manager: EntityManager,
  id: string,
  seenCounter: string,
  newCounter: number,
  at: Date,
): Promise<boolean> {
  const rows = await manager.query<Array<{ id: string }>>(
    `WITH used AS (UPDATE passkey SET counter = $3, last_used_at = $4 WHERE id = $1 AND counter = $2 RETURNING id)
     SELECT id FROM used`,
    [id, seenCounter, newCounter, at],
  );
  return rows.length > 0;
}
