import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { sha256Hex } from '../auth/credentials/sha256';

/** docs/contract.md: a `login_ticket` lives 60 seconds and works once. */
export const LOGIN_TICKET_TTL_MS = 60 * 1000;

export async function issueLoginTicket(manager: EntityManager, employeeId: number, now: Date): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await manager.query('DELETE FROM login_ticket WHERE expires_at < $1', [now]);
  await manager.query('INSERT INTO login_ticket (ticket_hash, employee_id, expires_at) VALUES ($1, $2, $3)', [
    sha256Hex(ticket),
    employeeId,
    new Date(now.getTime() + LOGIN_TICKET_TTL_MS),
  ]);
  return ticket;
}

/** Takes (deletes) a ticket and answers its employee; null when unknown, used or expired. */
export async function takeLoginTicket(manager: EntityManager, ticket: string, now: Date): Promise<number | null> {
  const rows = await manager.query<Array<{ employee_id: number }>>(
    `WITH taken AS (DELETE FROM login_ticket WHERE ticket_hash = $1 RETURNING employee_id, expires_at)
     SELECT employee_id FROM taken WHERE expires_at >= $2`,
    [sha256Hex(ticket), now],
  );
  return rows[0]?.employee_id ?? null;
}
