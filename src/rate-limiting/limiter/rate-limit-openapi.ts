import type { HeaderObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { codeLines } from '../../platform/common/errors/error-openapi';
import { ErrorCode } from '../../platform/common/errors/error-codes';

/**
 * The X-Rate-Limit-* headers of every `/v1` answer. One line each: they are on every response of every
 * operation, so their full explanation is in the document's description, not repeated in each headers table.
 */
export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-Rate-Limit-Limit': {
    description: "The bucket's capacity: requests admitted at once (it drains as many per 3 s)",
    schema: { type: 'integer', minimum: 1, example: 30 },
  },
  'X-Rate-Limit-Remaining': {
    description: 'Requests the bucket would still admit at once (0 when full)',
    schema: { type: 'integer', minimum: 0, example: 29 },
  },
  'X-Rate-Limit-Identifier': {
    description: 'The counter: `{ip}|{METHOD}|{group}|{token hash or -}`',
    schema: { type: 'string', example: '203.0.113.7|GET|products|9f86d081884c7d65' },
  },
  'RateLimit-Policy': {
    description:
      'draft-ietf-httpapi-ratelimit-headers-11 (RFC 9651 List): `"<method>-<group>";q=<capacity>;w=3`, the ' +
      'same bucket as X-Rate-Limit-Limit; a 429 of the concurrency cap adds `, "concurrency";q=<CONCURRENCY_LIMIT>`',
    schema: { type: 'string', example: '"get-products";q=30;w=3' },
  },
  RateLimit: {
    description:
      'draft-ietf-httpapi-ratelimit-headers-11 (RFC 9651 List): `"<method>-<group>";r=<remaining>;t=<seconds>`, ' +
      '`r` as X-Rate-Limit-Remaining, `t` the whole seconds (rounded up) until the bucket is empty; a 429 of the ' +
      'concurrency cap adds `, "concurrency";r=0`',
    schema: { type: 'string', example: '"get-products";r=29;t=1' },
  },
};

export const RETRY_AFTER_HEADER: HeaderObject = {
  required: true,
  description: 'Whole seconds, rounded up, until the next request fits (at least 1)',
  schema: { type: 'integer', minimum: 1, example: 1 },
};

const GENERAL_RATE_LIMIT_BODY: SchemaObject = {
  type: 'array',
  description:
    'The general request rate limit (the bucket, or the concurrency cap: CONCURRENCY_LIMIT requests of one ' +
    'credential in flight): exactly `["error_rate_limit_exceed"]`',
  items: { type: 'string', enum: [ErrorCode.RateLimitExceed] },
  minItems: 1,
  maxItems: 1,
};

const ACCOUNT_RATE_LIMIT_BODY: SchemaObject = {
  type: 'object',
  description:
    'A per-account limit: failed logins for one e-mail (10 within 15 minutes lock it until they pass), company ' +
    'switches per employee (a leaky bucket of 10 draining one every 6 seconds)',
  required: ['error', 'message'],
  additionalProperties: false,
  properties: {
    error: { type: 'array', items: { type: 'string', enum: [ErrorCode.RateLimitExceed] }, minItems: 1, maxItems: 1 },
    message: { type: 'string' },
  },
};

/** The body a per-account limit answers on the route that declares it (its 429's example), if any. */
export type AccountLimitExample = Record<string, unknown> | undefined;

/**
 * The 429 of an operation: the general limit's array body when the route is rate limited, the object body of
 * a per-account limit when the route declares one (`@ApiTooManyRequestsResponse`), both as `oneOf` when both
 * apply. Headers are added by the caller, as on every answer.
 */
export function rateLimitResponse(general: boolean, account: false | AccountLimitExample): ResponseObject {
  const schemas = [
    ...(general ? [GENERAL_RATE_LIMIT_BODY] : []),
    ...(account !== false ? [ACCOUNT_RATE_LIMIT_BODY] : []),
  ];
  const accountExample = account || {
    error: [ErrorCode.RateLimitExceed],
    message: 'Too many attempts; try again later.',
  };
  return {
    description: codeLines([ErrorCode.RateLimitExceed]),
    content: {
      'application/json': {
        schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas },
        examples: {
          ...(general
            ? { request_rate_limit: { summary: 'The request rate limit', value: [ErrorCode.RateLimitExceed] } }
            : {}),
          ...(account !== false ? { account_limit: { summary: 'A per-account limit', value: accountExample } } : {}),
        },
      },
    },
  };
}
