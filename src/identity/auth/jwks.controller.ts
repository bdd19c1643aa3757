import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { NoRateLimit } from '../../access/rules/rate-limit.decorator';
import { Public } from '../../access/rules/auth.decorator';
import { JwtKeyRing } from '../../platform/keys/jwt-key-ring';
import type { Ed25519Jwk } from '../../platform/keys/jws';

const JWK_SET_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
        properties: {
          kty: { type: 'string', enum: ['OKP'] },
          crv: { type: 'string', enum: ['Ed25519'] },
          x: { type: 'string', description: 'The public key, base64url' },
          kid: { type: 'string', description: 'RFC 7638 thumbprint (SHA-256, base64url)' },
          alg: { type: 'string', enum: ['EdDSA'] },
          use: { type: 'string', enum: ['sig'] },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

/**
 * The public keys other services verify our tokens with, offline (docs/contract.md "Other systems plug in").
 * Keys change only with a restart on new configuration, so caches may keep the set for minutes; a verifier
 * that meets an unknown `kid` fetches it again (jose's createRemoteJWKSet does).
 */
@ApiTags('tokens')
// Fetched by every verifying service, from few addresses: outside the request rate limit like the probes.
@NoRateLimit()
@Controller('.well-known')
export class JwksController {
  constructor(private readonly keys: JwtKeyRing) {}

  @Get('jwks.json')
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getJwks',
    summary: 'The JWK Set: the Ed25519 public keys that verify our tokens (current first, then earlier ones)',
    description:
      'Tokens signed with any key listed here stay valid until their own expiry. Empty while the service signs ' +
      'with HS256 (JWT_SECRET alone).',
  })
  @ApiOkResponse({
    description: 'The JWK Set (RFC 7517)',
    schema: JWK_SET_SCHEMA,
    headers: { 'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } } },
  })
  jwks(): { keys: Ed25519Jwk[] } {
    return this.keys.jwks();
  }
}
