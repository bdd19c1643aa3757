import type { FastifyReply, FastifyRequest } from 'fastify';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type';
const EXPOSED_HEADERS =
  'X-Rate-Limit-Limit, X-Rate-Limit-Remaining, X-Rate-Limit-Identifier, RateLimit-Policy, RateLimit, Retry-After, ' +
  'X-Request-Id';
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Applies CORS to one request; true when it answered the request itself (an allowed origin's preflight). */
export type CorsPolicy = (request: FastifyRequest, reply: FastifyReply) => boolean;

/**
 * CORS for the exact origins of `CORS_ORIGINS` (docs/contract.md, Operations), credentials included; with none configured there is no policy
 * and no response carries a CORS header. An allowed origin's preflight is answered 204 before routing (it carries
 * no credential and must not count against the rate limit). A refused origin gets no CORS header at all, so the
 * browser withholds the answer; its preflight goes on to routing and answers 404.
 */
export function corsPolicy(origins: readonly string[]): CorsPolicy | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return false;
    // Answers differ by Origin: a shared cache must not hand one origin's answer to another.
    reply.header('vary', 'Origin');
    if (!allowed.has(origin)) return false;
    reply.header('access-control-allow-origin', origin);
    // A single sign-on that returns to an allowed origin exchanges its code from that page with the browser's
    // binding cookie (`credentials: 'include'`), and the browser shows the answer only with this. That cookie is
    // the only one the service sets; every other credential travels in Authorization.
    reply.header('access-control-allow-credentials', 'true');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      void reply
        .code(204)
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
        .send();
      return true;
    }
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    return false;
  };
}
