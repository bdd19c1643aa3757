import type { SchemaObject } from '@nestjs/swagger';
import { ERROR_CATALOG, isErrorCode } from './error-catalog';
import { ErrorCode } from './error-codes';

/** The `details` of an error_validation body: one entry per problem. */
const FIELD_ERRORS: SchemaObject = {
  type: 'array',
  description: 'One entry per problem (error_validation only)',
  items: {
    type: 'object',
    required: ['field', 'message'],
    additionalProperties: false,
    properties: {
      field: {
        type: 'string',
        example: 'company_id',
        description: 'Dotted path of the field, e.g. `lines.0.quantity`',
      },
      message: { type: 'string', example: 'company_id must be an integer number' },
    },
  },
};

/** The one error body (docs/contract.md "Error bodies") of a status, closed over exactly the codes it can carry. */
export function errorBodySchema(status: number, codes: ErrorCode[]): SchemaObject {
  const properties: Record<string, SchemaObject> = {
    error: {
      type: 'array',
      description: 'Exactly one error code',
      items: { type: 'string', enum: codes },
      minItems: 1,
      maxItems: 1,
    },
    message: { type: 'string', description: 'One human sentence' },
  };
  if (codes.includes(ErrorCode.Validation)) properties.details = FIELD_ERRORS;
  if (status === 500) {
    properties.correlation_id = { type: 'string', description: 'Equals the X-Request-Id response header' };
  }
  return {
    type: 'object',
    required: status === 500 ? ['error', 'message', 'correlation_id'] : ['error', 'message'],
    additionalProperties: false,
    properties,
  };
}

/** A body the service really sends with this code, from the catalogue. */
export function exampleBody(code: ErrorCode): Record<string, unknown> {
  const entry = ERROR_CATALOG[code];
  return {
    error: [code],
    message: entry.example,
    ...(entry.details ? { details: entry.details } : {}),
    ...(code === ErrorCode.Internal ? { correlation_id: '5f0c2d1e-8a4b-4c1d-9e2f-3a4b5c6d7e8f' } : {}),
  };
}

/** One markdown line per code: when the service answers it. */
export const codeLines = (codes: ErrorCode[]): string =>
  codes.map((code) => `- \`${code}\`: ${ERROR_CATALOG[code].when}`).join('\n');

/**
 * The codes a declared response names (`'error_not_found: no product ...'`); a typo, or a code under a status it
 * is never answered with, is a problem. A declared response that names none must bring a body of its own (the
 * health report's 503); 429s may name none (their code is implied).
 */
export function codesNamedIn(
  problems: string[],
  operationId: string,
  status: number,
  description: string,
  hasBody: boolean,
): ErrorCode[] {
  const named = [...new Set(description.match(/\berror_[a-z_]+/g) ?? [])].filter((code) => {
    if (!isErrorCode(code)) {
      problems.push(`${operationId} ${status} names an unknown error code ${code}`);
      return false;
    }
    if (ERROR_CATALOG[code].status !== status) {
      problems.push(
        `${operationId} documents ${code} under ${status}, but it is answered with ${ERROR_CATALOG[code].status}`,
      );
      return false;
    }
    return true;
  });
  if (named.length === 0 && status !== 429 && !hasBody) {
    problems.push(`${operationId} declares a ${status} answer without naming its error code`);
  }
  return named as ErrorCode[];
}
