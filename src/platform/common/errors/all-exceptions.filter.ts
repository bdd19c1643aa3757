import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Inject,
  NotFoundException,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from './database-errors';
import { APP_LOGGER } from '../logging/logging.module';
import { type AppLogger, loggableUrl } from '../logging/logger';
import { ApiError, type ErrorBody } from './api-error';
import { DatabaseOutageLog } from './database-outage-log';
import { ErrorCode } from './error-codes';
import { errorDialectFor } from './error-dialects';
import { methodNotAllowed } from './method-not-allowed';
import { FORM_BODY_LIMIT_BYTES, isForm } from '../http/form-body';

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Status → code for exceptions thrown by Nest or a library rather than as an {@link ApiError}. */
const CODE_BY_STATUS: Partial<Record<number, { code: ErrorCode; message: string }>> = {
  [HttpStatus.BAD_REQUEST]: { code: ErrorCode.Validation, message: 'The request is not valid.' },
  [HttpStatus.FORBIDDEN]: { code: ErrorCode.PermissionDenied, message: 'You are not allowed to do this.' },
  [HttpStatus.NOT_FOUND]: { code: ErrorCode.NotFound, message: 'The requested resource was not found.' },
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: {
    code: ErrorCode.UnsupportedMediaType,
    message: 'The request body must be application/json.',
  },
  [HttpStatus.SERVICE_UNAVAILABLE]: {
    code: ErrorCode.ServiceUnavailable,
    message: 'The service is temporarily unavailable; try again shortly.',
  },
};

/** Fastify's own errors for bodies it refuses before any route runs. */
const FASTIFY_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: HttpStatus.PAYLOAD_TOO_LARGE,
    code: ErrorCode.PayloadTooLarge,
    message: 'The request body is larger than the 1 MiB limit.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    code: ErrorCode.UnsupportedMediaType,
    message: 'The request body must be application/json.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: HttpStatus.BAD_REQUEST,
    code: ErrorCode.Validation,
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: HttpStatus.BAD_REQUEST,
    code: ErrorCode.Validation,
    message: 'The Content-Length header does not match the body.',
  },
};

/** `1048576` → `1 MiB`, `65536` → `64 KiB`. */
function size(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes}-byte`;
}

function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: [code], message };
}

/**
 * The one place where a failure becomes a response. Every error leaves in the shape of docs/contract.md; anything
 * unexpected becomes a 500 that carries the request's correlation id and is logged once, never a stack.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly outage: DatabaseOutageLog,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const answer = this.answer(exception, request);
    if (reply.sent) return;
    if (answer.headers) reply.headers(answer.headers);
    const dialect = errorDialectFor(request.url);
    if (dialect) {
      reply
        .status(answer.status)
        .header('content-type', dialect.contentType)
        .send(dialect.render(answer.status, answer.body));
      return;
    }
    reply.status(answer.status).header('content-type', 'application/json; charset=utf-8').send(answer.body);
  }

  private answer(exception: unknown, request: FastifyRequest): Answer {
    if (exception instanceof ApiError) {
      const body = exception.rawBody ?? exception.getResponse();
      return { status: exception.getStatus(), body, headers: exception.headers };
    }

    const fastifyCode = (exception as { code?: unknown } | null)?.code;
    if (typeof fastifyCode === 'string' && fastifyCode in FASTIFY_ERRORS) {
      const known = FASTIFY_ERRORS[fastifyCode];
      return { status: known.status, body: errorBody(known.code, known.message) };
    }

    // The router's own "no route" (Nest's NotFoundException, not an ApiError a handler threw).
    if (exception instanceof NotFoundException) {
      const wrongMethod = methodNotAllowed(request);
      if (wrongMethod) return this.answer(wrongMethod, request);
    }

    if (exception instanceof HttpException && exception.getStatus() === HttpStatus.PAYLOAD_TOO_LARGE) {
      // Fastify's body limit, arriving through Nest as a bare HttpException: the limit of this body's parser.
      const limit = isForm(request.headers['content-type']) ? FORM_BODY_LIMIT_BYTES : request.routeOptions.bodyLimit;
      const body = errorBody(ErrorCode.PayloadTooLarge, `The request body is larger than the ${size(limit)} limit.`);
      return { status: HttpStatus.PAYLOAD_TOO_LARGE, body };
    }

    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const known = CODE_BY_STATUS[status];
      if (known) return { status, body: errorBody(known.code, this.describe(exception, known.message)) };
    }

    if (isDatabaseUnavailable(exception)) {
      // Logged once per outage (when it starts and when it ends), not once per refused request.
      this.outage.requestRefused(exception);
      return {
        status: HttpStatus.SERVICE_UNAVAILABLE,
        body: errorBody(ErrorCode.ServiceUnavailable, 'The database cannot be reached; try again shortly.'),
      };
    }

    this.logger.error(
      { reqId: request.id, err: exception, method: request.method, url: loggableUrl(request.url) },
      'unhandled error',
    );
    const body: ErrorBody = {
      ...errorBody(ErrorCode.Internal, 'An unexpected error occurred. Quote the correlation id when reporting it.'),
      correlation_id: String(request.id),
    };
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, body };
  }

  /**
   * Keeps a library's message when it is about the request's shape ("Validation failed (numeric string is
   * expected)"), but never echoes a JSON parser's message, which quotes the body back.
   */
  private describe(exception: HttpException, fallback: string): string {
    const message = exception.message;
    if (exception.getStatus() !== HttpStatus.BAD_REQUEST) return fallback;
    if (/JSON/i.test(message)) return 'The request body is not valid JSON.';
    return message && message !== 'Bad Request Exception' ? message : fallback;
  }
}
