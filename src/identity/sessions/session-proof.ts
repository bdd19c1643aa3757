import type { EntityManager } from 'typeorm';

/**
 * The session's person proved who they are at `at` (a reauthentication), inside the caller's transaction: step-up
 * routes admit it for 15 minutes from then. Answers false when the session is no longer live.
 */
export async function markSessionProven(manager: EntityManager, sessionId: string, at: Date): Promise<boolean> {
  const updated = await manager.query<Array<{ id: string }>>(
    `WITH proven AS (UPDATE login_session SET proven_at = $2 WHERE id = $1 AND ended_at IS NULL RETURNING id)
     SELECT id FROM proven`,
    [sessionId, at],
  );
  return updated.length > 0;
}
