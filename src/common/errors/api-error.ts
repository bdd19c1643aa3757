import { HttpException, HttpStatus } from '@nestjs/common';
import { ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/** The one error body of the API: `{"error": ["<code>"], "message": "...", "details"?: [...]}`. */
export interface ErrorBody {
  error: [ErrorCode];
  message: string;
  details?: FieldError[];
  correlation_id?: string;
}

/**
 * An error the API answers on purpose. Throw it from anywhere; the global filter turns it into the documented
 * body and status.
 */
export class ApiError extends HttpException {
  constructor(
    readonly code: ErrorCode,
    status: HttpStatus,
    message: string,
    readonly details?: FieldError[],
  ) {
    super({ error: [code], message, ...(details ? { details } : {}) } satisfies ErrorBody, status);
  }

  static validation(message: string, details?: FieldError[]): ApiError {
    return new ApiError(ErrorCode.Validation, HttpStatus.BAD_REQUEST, message, details);
  }

  static notFound(message = 'The requested resource was not found.'): ApiError {
    return new ApiError(ErrorCode.NotFound, HttpStatus.NOT_FOUND, message);
  }
}
