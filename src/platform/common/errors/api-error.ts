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

/** Error.stackTraceLimit as it was before a client error's construction set it to 0 (see {@link ApiError}). */
let stackLimitBeforeMute: number | undefined;

/**
 * A client error (4xx) is the caller's doing, not a fault of this code: its stack is never logged (docs/contract.md),
 * and capturing one was the largest single cost of a refused request (about 10 µs of CPU per 429 under load,
 * measured with --cpu-prof). Called while the arguments of `super()` are evaluated, that is just before the
 * Error constructor captures the stack; the constructor restores the limit right after.
 */
function muteStackFor<T>(status: number, body: T): T {
  if (status < 500) {
    stackLimitBeforeMute = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  }
  return body;
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
    /** Response headers that belong to this answer, such as `Retry-After` on a 429. */
    readonly headers: Record<string, string> = {},
    /** A body other than the standard one, where the source prescribes it (the general rate limit). */
    readonly rawBody?: unknown,
  ) {
    super(
      muteStackFor(status, { error: [code], message, ...(details ? { details } : {}) } satisfies ErrorBody),
      status,
    );
    if (stackLimitBeforeMute !== undefined) {
      Error.stackTraceLimit = stackLimitBeforeMute;
      stackLimitBeforeMute = undefined;
    }
  }

  /**
   * The general request rate limit: 429 with the body `["error_rate_limit_exceed"]`, exactly as the source
   * gives it, and `Retry-After`.
   */
  static requestRateLimited(retryAfterSeconds: number): ApiError {
    return new ApiError(
      ErrorCode.RateLimitExceed,
      HttpStatus.TOO_MANY_REQUESTS,
      'Too many requests; the next one fits after Retry-After seconds.',
      undefined,
      { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      [ErrorCode.RateLimitExceed],
    );
  }

  /** A per-account limit (login attempts, company switches): 429 with the object body and `Retry-After`. */
  static accountRateLimited(retryAfterSeconds: number, message: string): ApiError {
    return new ApiError(ErrorCode.RateLimitExceed, HttpStatus.TOO_MANY_REQUESTS, message, undefined, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }

  static validation(message: string, details?: FieldError[]): ApiError {
    return new ApiError(ErrorCode.Validation, HttpStatus.BAD_REQUEST, message, details);
  }

  /** 409: a value that must be unique (docs/contract.md names a product's sku in its company) is taken. */
  static conflict(message: string): ApiError {
    return new ApiError(ErrorCode.Conflict, HttpStatus.CONFLICT, message);
  }

  static notFound(message = 'The requested resource was not found.'): ApiError {
    return new ApiError(ErrorCode.NotFound, HttpStatus.NOT_FOUND, message);
  }
}
