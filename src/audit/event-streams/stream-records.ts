import type { EntityManager } from 'typeorm';
import type { SealedColumn } from '../../platform/keys/sealed-columns';
import { type ResealBatch, resealRows, type SealCursor } from '../../platform/common/sealing/reseal-rows';

/** A stream taken for one batch of deliveries. */
export interface ClaimedStream {
  id: string;
  companyId: number;
  url: string;
  secret: string;
  failingSince: Date | null;
  failures: number;
}

export interface PendingRow {
  id: string;
  eventId: string;
}

export interface AttemptRow {
  eventId: string;
  webhookId: string;
  attemptedAt: Date;
  status: number | null;
  outcome: 'delivered' | 'failed';
  error: string | null;
  durationMs: number;
}

/** What a batch changes on the stream itself. */
export type StreamUpdate =
  | { kind: 'ok' }
  | { kind: 'retry'; failingSince: Date; failures: number; retryAt: Date; error: string | null }
  | { kind: 'paused'; failingSince: Date; failures: number; error: string | null; at: Date };

/** Attempts kept per stream for the deliveries list. */
const ATTEMPTS_KEPT = 1000;

/** The advisory-lock namespace of stream deliveries (the two-int4 key space, apart from single-bigint users). */
const LOCK_SPACE = 0x53545245;
/** Candidates looked at per claim: enough that a few streams held by other instances do not hide a free one. */
const CANDIDATES = 8;

type StreamRow = {
  id: string;
  company_id: number;
  url: string;
  secret: string;
  failing_since: Date | null;
  failures: number;
};

const DUE = `s.state = 'active' AND (s.retry_at IS NULL OR s.retry_at <= $1)`;

/**
 * The active stream with due work whose oldest pending event is oldest, not being delivered by this process
 * (`busy`). With `lock`, the stream is taken with `pg_try_advisory_xact_lock` until the caller's transaction
 * ends: another instance skips it (a killed instance's lock ends with its connection; a transaction-scoped lock
 * is what PgBouncer's transaction mode keeps). An advisory lock rather than a row lock, so that deleting the
 * stream or recording its company's events never waits for a batch in progress.
 */
export async function claimStream(
  manager: EntityManager,
  now: Date,
  busy: string[],
  lock: boolean,
): Promise<ClaimedStream | null> {
  const candidates: StreamRow[] = await manager.query(
    `SELECT s.id, s.company_id, s.url, s.secret, s.failing_since, s.failures
       FROM event_stream s
      WHERE ${DUE} AND NOT (s.id = ANY($2::uuid[]))
        AND EXISTS (SELECT 1 FROM event_stream_outbox o WHERE o.stream_id = s.id)
      ORDER BY (SELECT min(o.event_id) FROM event_stream_outbox o WHERE o.stream_id = s.id)
      LIMIT ${lock ? CANDIDATES : 1}`,
    [now, busy],
  );
  if (!lock) return candidates.length === 0 ? null : toClaimed(candidates[0]);
  for (const candidate of candidates) {
    const [{ locked }]: Array<{ locked: boolean }> = await manager.query(
      `SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked`,
      [LOCK_SPACE, candidate.id],
    );
    if (!locked) continue;
    // Read again under the lock: the instance that held it may have delivered, failed or paused meanwhile.
    const [fresh]: StreamRow[] = await manager.query(
      `SELECT s.id, s.company_id, s.url, s.secret, s.failing_since, s.failures FROM event_stream s
        WHERE s.id = $2 AND ${DUE}`,
      [now, candidate.id],
    );
    if (fresh !== undefined) return toClaimed(fresh);
  }
  return null;
}

function toClaimed(row: StreamRow): ClaimedStream {
  return {
    id: row.id,
    companyId: row.company_id,
    url: row.url,
    secret: row.secret,
    failingSince: row.failing_since === null ? null : new Date(row.failing_since),
    failures: row.failures,
  };
}

/** The stream's next events to deliver, in event order. */
export async function pendingRows(manager: EntityManager, streamId: string, limit: number): Promise<PendingRow[]> {
  const rows: Array<{ id: string; event_id: string }> = await manager.query(
    `SELECT id, event_id FROM event_stream_outbox WHERE stream_id = $1 ORDER BY event_id, id LIMIT $2`,
    [streamId, limit],
  );
  return rows.map((row) => ({ id: String(row.id), eventId: String(row.event_id) }));
}

/**
 * Writes a batch's outcome: the stream's new state, the outbox rows done with, the attempts. Returns false (and
 * writes nothing) when the stream was deleted meanwhile.
 */
export async function saveBatch(
  manager: EntityManager,
  streamId: string,
  update: StreamUpdate,
  doneRowIds: string[],
  attempts: AttemptRow[],
): Promise<boolean> {
  const [set, values]: [string, unknown[]] =
    update.kind === 'ok'
      ? ['failing_since = NULL, failures = 0, retry_at = NULL, last_error = NULL', []]
      : update.kind === 'retry'
        ? [
            'failing_since = $2, failures = $3, retry_at = $4, last_error = $5',
            [update.failingSince, update.failures, update.retryAt, update.error],
          ]
        : [
            "state = 'paused', paused_at = $2, failing_since = $3, failures = $4, retry_at = NULL, last_error = $5",
            [update.at, update.failingSince, update.failures, update.error],
          ];
  const [updated]: [Array<{ id: string }>, number] = await manager.query(
    `UPDATE event_stream SET ${set} WHERE id = $1 RETURNING id`,
    [streamId, ...values],
  );
  if (updated.length === 0) return false;
  if (doneRowIds.length > 0) {
    await manager.query(`DELETE FROM event_stream_outbox WHERE id = ANY($1::bigint[])`, [doneRowIds]);
  }
  if (attempts.length > 0) {
    const params: unknown[] = [streamId];
    const tuples = attempts.map((a) => {
      const start = params.length;
      params.push(a.eventId, a.webhookId, a.attemptedAt, a.status, a.outcome, a.error, a.durationMs);
      return `($1, ${[1, 2, 3, 4, 5, 6, 7].map((i) => `$${start + i}`).join(', ')})`;
    });
    await manager.query(
      `INSERT INTO event_stream_delivery (stream_id, event_id, webhook_id, attempted_at, status, outcome, error,
                                          duration_ms)
       VALUES ${tuples.join(', ')}`,
      params,
    );
    await manager.query(
      `DELETE FROM event_stream_delivery
        WHERE stream_id = $1
          AND id <= (SELECT id FROM event_stream_delivery WHERE stream_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [streamId, ATTEMPTS_KEPT],
    );
  }
  return true;
}

/** How many streams are active, of every company (an instance that counts none does not poll). */
export async function countActiveStreams(manager: EntityManager): Promise<number> {
  const [row]: Array<{ count: string }> = await manager.query(
    `SELECT count(*) AS count FROM event_stream WHERE state = 'active'`,
  );
  return Number(row.count);
}

/**
 * One batch of re-encryption of the streams' signing secrets (src/platform/keys/sealed-columns.ts), as for the SSO
 * client secrets, by stream id; the `whsec_…` values of streams created before secrets were sealed are sealed.
 */
async function resealStreamSecrets(
  manager: EntityManager,
  currentPrefix: string,
  afterId: SealCursor,
  limit: number,
  reseal: (sealed: string) => string | null,
): Promise<ResealBatch> {
  const rows = await manager.query<Array<{ id: string; secret: string }>>(
    `SELECT id, secret FROM event_stream
      WHERE id > $1::uuid AND left(secret, length($2)) <> $2
      ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [afterId, currentPrefix, limit],
  );
  return resealRows(rows, { id: (row) => row.id, sealed: (row) => row.secret }, reseal, (row, value) =>
    manager.query('UPDATE event_stream SET secret = $3 WHERE id = $1 AND secret = $2', [row.id, row.secret, value]),
  );
}

/** What a stream's secret looked like before it was sealed: Standard Webhooks' `whsec_` prefix. */
export const isPlainStreamSecret = (value: string): boolean => value.startsWith('whsec_');

export const STREAM_SECRETS: SealedColumn = {
  name: 'event_stream.secret',
  purpose: 'event_stream_secret',
  firstCursor: '00000000-0000-0000-0000-000000000000',
  isPlain: isPlainStreamSecret,
  resealBatch: resealStreamSecrets,
};
