import { DiscoveryService } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';

/** The token hash of a request without a valid credential (docs/contract.md, Rate limiting). */
export const NO_CREDENTIAL = '-';

/** Whose credential it is, as far as the operator's overrides care (the auth module's principal has this shape). */
export interface CredentialOwner {
  readonly kind: 'jwt' | 'api_key';
  readonly companyId: number;
  /** The API key's id for an API key. */
  readonly credentialId: string;
  /** The login session of a JWT (`null` for an API key), and whose credential it is: the limited list shows them. */
  readonly sessionId: string | null;
  readonly employee: { readonly id: number; readonly email: string };
}

/**
 * All the rate limiter asks about a request's credential, as a port: the auth module implements it (its
 * CredentialService, marked {@link RateLimitCredentialSource}), the limiter never sees strategies, caches or
 * principals.
 */
export abstract class RateLimitCredentials {
  /**
   * From memory only (no I/O, no await): the token hash (16 hex characters) of a credential known to be valid,
   * {@link NO_CREDENTIAL} for one known not to be (absent, malformed, revoked, expired), `undefined` when only a
   * look-up can tell.
   */
  abstract knownTokenHash(request: FastifyRequest): string | undefined;

  /**
   * From memory only: whether a credential {@link knownTokenHash} cannot judge yet was provably issued by the
   * service (a JWT with a valid signature), so looking it up before counting it cannot be abused.
   */
  abstract vouchedFor(request: FastifyRequest): boolean;

  /** From memory only: the owner of a credential {@link knownTokenHash} knows to be valid, else `undefined`. */
  abstract knownOwner(request: FastifyRequest): CredentialOwner | undefined;

  /** The same answer, looking the credential up when memory cannot tell (concurrent asks share one look-up). */
  abstract tokenHash(request: FastifyRequest): Promise<string>;
}

/** Marks the one provider that answers {@link RateLimitCredentials} (found by DiscoveredRateLimitCredentials). */
export const RateLimitCredentialSource = DiscoveryService.createDecorator<void>();
