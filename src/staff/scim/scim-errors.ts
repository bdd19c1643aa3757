import { HttpStatus } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { ApiError } from '../../platform/common/errors/api-error';
import type { ErrorDialect } from '../../platform/common/errors/error-dialects';
import { ErrorCode } from '../../platform/common/errors/error-codes';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
/** RFC 7644 3.1: every SCIM answer, errors included. */
export const SCIM_MEDIA_TYPE = 'application/scim+json; charset=utf-8';

/** RFC 7644 3.12, Table 9: the `scimType` of a 400 (and `uniqueness` of a 409). */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail: string;
}

export function scimErrorBody(status: number, detail: string, scimType?: ScimType): ScimErrorBody {
  return { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: ErrorCode.Validation,
  401: ErrorCode.JwtIsRequired,
  403: ErrorCode.PermissionDenied,
  404: ErrorCode.NotFound,
  409: ErrorCode.Conflict,
};

/** An error a SCIM route answers on purpose, already in SCIM's error schema. */
export class ScimError extends ApiError {
  constructor(status: HttpStatus, detail: string, scimType?: ScimType, headers: Record<string, string> = {}) {
    super(
      CODE_BY_STATUS[status] ?? ErrorCode.Validation,
      status,
      detail,
      undefined,
      headers,
      scimErrorBody(status, detail, scimType),
    );
  }

  static invalidValue(detail: string): ScimError {
    return new ScimError(HttpStatus.BAD_REQUEST, detail, 'invalidValue');
  }

  static override notFound(): ScimError {
    return new ScimError(HttpStatus.NOT_FOUND, 'No such user in this company.');
  }
}

function isScimErrorBody(body: unknown): body is ScimErrorBody {
  const schemas = (body as { schemas?: unknown } | null)?.schemas;
  return Array.isArray(schemas) && schemas[0] === SCIM_ERROR_SCHEMA;
}

/**
 * Errors under /scim in SCIM's schema: what a SCIM route throws already is; everything else the global filter
 * decides (malformed JSON, a wrong content type, an unknown route, the rate limit, a 500) is rewritten from the
 * contract's body, keeping its status and message.
 */
export const SCIM_ERROR_DIALECT: ErrorDialect = {
  pathPrefix: '/scim',
  contentType: SCIM_MEDIA_TYPE,
  render(status, body) {
    if (isScimErrorBody(body)) return body;
    const contractBody = body as { error?: unknown; message?: unknown } | null;
    const detail =
      status === HttpStatus.TOO_MANY_REQUESTS
        ? 'Too many requests; the next one fits after Retry-After seconds.'
        : typeof contractBody?.message === 'string'
          ? contractBody.message
          : (STATUS_CODES[status] ?? 'Error');
    let scimType: ScimType | undefined;
    if (status === HttpStatus.BAD_REQUEST) scimType = /JSON|body/i.test(detail) ? 'invalidSyntax' : 'invalidValue';
    return scimErrorBody(status, detail, scimType);
  },
};
