import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiNotFoundResponse, ApiParam, ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { ErrorBodySchema } from '../errors/error-body.schema';

/** The largest PostgreSQL `integer`: ids of identity columns never exceed it. */
export const MAX_RECORD_ID = 2_147_483_647;

const CANONICAL_ID = /^[1-9][0-9]{0,9}$/;

/** `"42"` → 42; anything that cannot name a row (`abc`, `0`, `-1`, `1e3`, `007`, too large) → null. */
export function parseRecordId(raw: unknown): number | null {
  if (typeof raw !== 'string' || !CANONICAL_ID.test(raw)) return null;
  const id = Number(raw);
  return id <= MAX_RECORD_ID ? id : null;
}

/**
 * The integer `:id` of a company's record. A value that cannot be an id answers 404 `error_not_found`, like an
 * id of another company: to the caller, both are "no such record", and no 400 hints at which ids exist.
 *
 * A custom decorator rather than a pipe on `@Param`: the global ValidationPipe would first turn the string into a
 * number (`+"1e3"` is 1000, `+" 7"` is 7), so a pipe could no longer refuse non-canonical spellings.
 */
export const RecordId = createParamDecorator((notFoundMessage: string | undefined, context: ExecutionContext) => {
  const params = context.switchToHttp().getRequest<{ params?: Record<string, unknown> }>().params;
  const id = parseRecordId(params?.id);
  if (id === null) throw ApiError.notFound(notFoundMessage);
  return id;
});

/** OpenAPI for a route with {@link RecordId}: the `id` path parameter and its 404 (custom decorators add neither). */
export function ApiRecordId(what: string) {
  return applyDecorators(
    ApiParam({
      name: 'id',
      schema: { type: 'integer', minimum: 1, maximum: MAX_RECORD_ID },
      description: `The ${what}'s id`,
    }),
    ApiNotFoundResponse({
      description: `error_not_found: no ${what} with this id in the current company (or the id is not an integer)`,
      type: ErrorBodySchema,
    }),
  );
}

/**
 * A body field naming a row (`company_id`, `product_id`). `@IsInt()` alone accepts 1e308, which PostgreSQL refuses
 * as an `integer`: the bound keeps such a value a 400 `error_validation` instead of a failed query.
 */
export function RecordIdProperty(options: { example: number; description?: string }) {
  return applyDecorators(
    ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_RECORD_ID, ...options }),
    IsInt(),
    Min(1),
    Max(MAX_RECORD_ID),
  );
}
