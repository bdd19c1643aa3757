import { HttpStatus } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { ErrorCode } from './error-codes';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The methods some route serves at this request's path (HEAD wherever GET is); empty for a path no route has. */
export function allowedMethods(request: FastifyRequest): string[] {
  const url = request.url.split('?', 1)[0];
  return METHODS.filter((method) => request.server.findRoute({ method, url }) !== null);
}

/**
 * A request the router did not match: 405 with `Allow` when its path is a route's under another method (RFC 9110
 * 15.5.6), `null` when the path is unknown (the contract's 404 `error_not_found`). Neither the path nor the method
 * is quoted back.
 */
export function methodNotAllowed(request: FastifyRequest): ApiError | null {
  const allowed = allowedMethods(request);
  if (allowed.length === 0 || allowed.includes(request.method)) return null;
  const list = allowed.join(', ');
  return new ApiError(
    ErrorCode.MethodNotAllowed,
    HttpStatus.METHOD_NOT_ALLOWED,
    `This path does not take that method; it takes ${list} (the Allow header).`,
    undefined,
    { allow: list },
  );
}
