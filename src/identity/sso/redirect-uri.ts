import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../../platform/config/app-config';

/**
 * The callback URL to register at the provider: `<PUBLIC_URL>/v1/sso/callback`. Without PUBLIC_URL, in
 * development, the request's own scheme and host (as TRUST_PROXY lets Fastify see them); in production none (no
 * flow can start): a Host header never chooses where a provider sends codes.
 */
export function redirectUriOf(request: FastifyRequest, config: AppConfig): string | null {
  if (config.publicUrl !== undefined) return `${config.publicUrl}/v1/sso/callback`;
  if (config.isProduction) return null;
  return `${request.protocol}://${request.host}/v1/sso/callback`;
}
