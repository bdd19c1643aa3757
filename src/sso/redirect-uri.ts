import type { FastifyRequest } from 'fastify';

/**
 * The callback URL as the browser reaches this service (scheme and host as TRUST_PROXY lets Fastify see them):
 * the redirect URI to register at the provider. A forged Host only yields a URI the provider refuses.
 */
export function redirectUriOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}/v1/sso/callback`;
}
