import pino, { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../../config/app-config';

export type AppLogger = Logger;

/**
 * Keys whose values never reach a log line, wherever they appear in a logged object (request headers, bodies,
 * error details). Logging code should not pass such values at all; this is the net under it.
 */
const REDACTED_PATHS = [
  'password',
  'secret',
  'token',
  'jwt',
  'refresh_token',
  'authorization',
  'api_key',
  '__jwtAuthorization',
  '*.password',
  '*.secret',
  '*.token',
  '*.jwt',
  '*.refresh_token',
  '*.authorization',
  '*.api_key',
  '*.__jwtAuthorization',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

/**
 * An error as it may be logged: type, message, code and stack. Deliberately not the whole object, since a
 * database error carries the query's parameters (password hashes, token digests).
 */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const { code } = error as { code?: unknown };
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    stack: error.stack,
  };
}

export function createLogger(level: LogLevel, destination?: DestinationStream): AppLogger {
  return pino(
    {
      level,
      base: { service: 'staff-auth-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      serializers: { err: serializeError, error: serializeError },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

// `code` and `state`: an OpenID provider's answer at /v1/sso/callback (single use, still kept out of logs).
const SENSITIVE_QUERY_KEY = /jwt|token|secret|password|authorization|api[_-]?key|signature|^code$|^state$/i;

/** A path parameter, `;name=value` (RFC 3986 allows them in any segment); the value runs to the next `;` or `/`. */
const PATH_PARAMETER = /;([^;=/]*)=([^;/]*)/g;

/** Percent-decodes what decodes and keeps the rest, so a malformed escape elsewhere cannot hide a name. */
function leniently(encoded: string): string {
  return encoded.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * The request target as it may be logged: the path, and the query with the values of credential-like
 * parameters (`__jwtAuthorization` above all) replaced, in both places a client can put them: the query
 * (`?__jwtAuthorization=…`) and a path parameter (`/v1/users/me;__jwtAuthorization=…`), also when the name is
 * percent-encoded.
 */
export function loggableUrl(rawUrl: string): string {
  const queryStart = rawUrl.indexOf('?');
  const path = loggablePath(queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart));
  if (queryStart === -1) return path;
  const params = new URLSearchParams(rawUrl.slice(queryStart + 1));
  const kept: string[] = [];
  for (const [key, value] of params) {
    const shown = SENSITIVE_QUERY_KEY.test(key) ? '[REDACTED]' : value;
    kept.push(`${encodeURIComponent(key)}=${encodeURIComponent(shown)}`);
  }
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

function loggablePath(path: string): string {
  if (!path.includes(';')) return path;
  return path.replace(PATH_PARAMETER, (parameter, name: string) =>
    SENSITIVE_QUERY_KEY.test(leniently(name)) ? `;${name}=%5BREDACTED%5D` : parameter,
  );
}
