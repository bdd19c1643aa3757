import type { HeaderObject } from '@nestjs/swagger';
import { ErrorCode } from '../../platform/common/errors/error-codes';

/**
 * What any request can meet, whatever its route (edge-errors.ts and the exception filter): refusals before
 * routing (malformed HTTP, 414, 431), 503 while shutting down or while the database is away, the unexpected.
 */
export const EDGE_ERRORS: ErrorCode[] = [
  ErrorCode.BadRequest,
  ErrorCode.UriTooLong,
  ErrorCode.HeadersTooLarge,
  ErrorCode.Internal,
  ErrorCode.ServiceUnavailable,
];

/**
 * Statuses some of whose answers are decided before routing: those answers cannot carry the route's
 * rate-limit headers, so the headers are not required there.
 */
export const MAY_BE_DECIDED_BEFORE_ROUTING = new Set([400, 414, 431, 503]);

/** Set by the onRequest hook (request-hooks.ts) on every answer. */
export const REQUEST_ID_HEADER: HeaderObject = {
  description: "The request id (the caller's own X-Request-Id when it looks like one); the 500 `correlation_id`",
  schema: { type: 'string' },
};
