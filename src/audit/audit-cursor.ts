import { ApiError } from '../common/errors/api-error';

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

export function decodeCursor(value: string): AuditCursor {
  const text = /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url').toString('utf8') : '';
  const match = /^(-?\d{1,17}):(\d{1,19})$/.exec(text);
  if (!match) {
    throw ApiError.validation('cursor is not a cursor this service gave out', [
      { field: 'cursor', message: "must be the previous page's next_cursor" },
    ]);
  }
  return { micros: match[1], id: match[2] };
}
