import type { FastifyRequest } from 'fastify';

/** Where a request came from, for login sessions and security events. */
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

export function clientOf(request: FastifyRequest): ClientInfo {
  const userAgent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
