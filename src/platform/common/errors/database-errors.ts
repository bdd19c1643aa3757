/**
 * Whether an error means "the database cannot be reached" (answered 503) rather than "this query is wrong"
 * (a bug, answered 500). Covers node-postgres, pg-pool and PostgreSQL's own shutdown and connection codes.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections.
const SERVER_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

const UNAVAILABLE_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /connection terminated/i,
  /query read timeout/i,
  /Client has encountered a connection error/i,
  // A connection closed after its query timed out, asked again by the code that still holds it.
  /Client was closed and is not queryable/i,
  /Connection terminated due to connection timeout/i,
  /waiting for the embedded database/i,
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, message, driverError, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SERVER_UNAVAILABLE_CODES.has(code)) return true;
    // Class 08: connection exceptions.
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
