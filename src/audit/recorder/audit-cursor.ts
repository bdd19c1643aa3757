import { ApiError } from '../../platform/common/errors/api-error';

/**
 * The keyset position after an event: its `occurred_at` (in microseconds since the epoch, PostgreSQL's own
 * precision, so no event shares a truncated time with the cursor) and its id. Opaque to clients: base64url.
 */
export interface AuditCursor {
  micros: string;
  id: string;
}

export function encodeCursor(cursor: AuditCursor): string {
  return Buffer.from(`${cursor.micros}:${cursor.id}`, 'utf8').toString('base64url');
}

/** The largest PostgreSQL `bigint`, the type of an event's id: a cursor naming a larger one was never given out. */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * Checked to the columns' types before any query (docs/contract.md: out of range is 400, never a failed query):
 * 17 digits of microseconds stay within PostgreSQL's timestamp range either side of the epoch.
 */
export function decodeCursor(value: string): AuditCursor {
  const text = /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url').toString('utf8') : '';
  const match = /^(-?\d{1,17}):(\d{1,19})$/.exec(text);
  if (!match || BigInt(match[2]) > MAX_BIGINT) {
    throw ApiError.validation('cursor is not a cursor this service gave out', [
      { field: 'cursor', message: "must be the previous page's next_cursor" },
    ]);
  }
  return { micros: match[1], id: match[2] };
}
