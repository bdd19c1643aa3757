import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { discover } from '../../platform/common/discovery/discovered';
import {
  type CredentialOwner,
  RateLimitCredentials,
  RateLimitCredentialSource,
} from '../../access/rules/rate-limit-credentials';

/**
 * The limiter's {@link RateLimitCredentials}: the one provider of the application marked
 * {@link RateLimitCredentialSource} (the auth module's CredentialService), found once at start and asked directly
 * from then on. So the limiter and the auth module import neither the other's module nor a global binding.
 */
@Injectable()
export class DiscoveredRateLimitCredentials extends RateLimitCredentials implements OnModuleInit {
  private source!: RateLimitCredentials;

  constructor(private readonly discovery: DiscoveryService) {
    super();
  }

  onModuleInit(): void {
    const found = discover<RateLimitCredentials, void>(this.discovery, RateLimitCredentialSource);
    if (found.length !== 1) {
      throw new Error(`the rate limiter needs one provider marked @RateLimitCredentialSource(), found ${found.length}`);
    }
    this.source = found[0].instance;
  }

  knownTokenHash(request: FastifyRequest): string | undefined {
    return this.source.knownTokenHash(request);
  }

  vouchedFor(request: FastifyRequest): boolean {
    return this.source.vouchedFor(request);
  }

  knownOwner(request: FastifyRequest): CredentialOwner | undefined {
    return this.source.knownOwner(request);
  }

  tokenHash(request: FastifyRequest): Promise<string> {
    return this.source.tokenHash(request);
  }
}
