import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** docs/contract.md: a passkey challenge lives 5 minutes and works once. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** Stores a challenge (expired ones are swept on the way, so the table stays small) and answers its id. */
export async function storeChallenge(
  manager: EntityManager,
  challenge: string,
  purpose: 'registration' | 'assertion',
  employeeId: number | null,
  now: Date,
): Promise<string> {
  const id = randomUUID();
  await manager.query('DELETE FROM webauthn_challenge WHERE expires_at < $1', [now]);
  await manager.query(
    'INSERT INTO webauthn_challenge (id, challenge, purpose, employee_id, expires_at) VALUES ($1, $2, $3, $4, $5)',
    [id, challenge, purpose, employeeId, new Date(now.getTime() + CHALLENGE_TTL_MS)],
  );
  return id;
}

/** Takes (deletes) an unexpired sign-in challenge by id; null when unknown, used or expired. */
export async function takeAssertionChallenge(manager: EntityManager, id: string, now: Date): Promise<string | null> {
  const rows = await manager.query<Array<{ challenge: string }>>(
    `WITH taken AS (DELETE FROM webauthn_challenge WHERE id = $1 AND purpose = 'assertion' RETURNING challenge, expires_at)
     SELECT challenge FROM taken WHERE expires_at >= $2`,
    [id, now],
  );
  return rows[0]?.challenge ?? null;
}

/** Takes an unexpired registration challenge of this employee by its value (the response carries only that). */
export async function takeRegistrationChallenge(
  manager: EntityManager,
  employeeId: number,
  challenge: string,
  now: Date,
): Promise<boolean> {
  const rows = await manager.query<Array<{ id: string }>>(
    `WITH taken AS (DELETE FROM webauthn_challenge
                     WHERE employee_id = $1 AND challenge = $2 AND purpose = 'registration' RETURNING id, expires_at)
     SELECT id FROM taken WHERE expires_at >= $3`,
    [employeeId, challenge, now],
  );
  return rows.length > 0;
}
