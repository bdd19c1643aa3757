import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Where a request came from, as login sessions and security events record it. */
export interface ClientInfo {
  /** The client IP as TRUST_PROXY defines it (Fastify's `request.ip`). */
  ip: string;
  userAgent: string | null;
}

export function clientOf(request: FastifyRequest): ClientInfo {
  const userAgent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : null };
}

/** `@Client() client: ClientInfo` in a handler's parameters. */
export const Client = createParamDecorator((_data: unknown, context: ExecutionContext): ClientInfo =>
  clientOf(context.switchToHttp().getRequest()),
);
