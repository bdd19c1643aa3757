import type { ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { NO_CREDENTIAL, type RateLimitCredentials } from './rate-limit-credentials';
import { rateLimitIdentifier } from './rate-limit-key';
import type { RateLimitPolicy } from './rate-limit.policy';

/** The end of an identifier whose credential memory could not vouch for (`…|-`). */
export const NO_CREDENTIAL_SUFFIX = `|${NO_CREDENTIAL}`;

/**
 * The throttler's `getTracker`: the identifier memory can give now, with the credential's token hash when it
 * is known valid and `-` otherwise. Never looks anything up, so it answers synchronously (the throttler awaits
 * whatever it returns; the guard's fast path uses the string as it is).
 */
export const memoryTracker =
  (policy: RateLimitPolicy, credentials: RateLimitCredentials) =>
  (request: object, context: ExecutionContext): string => {
    const { group } = policy.route(context.getHandler(), context.getClass());
    const fastifyRequest = request as FastifyRequest;
    return rateLimitIdentifier(fastifyRequest, group, credentials.knownTokenHash(fastifyRequest) ?? NO_CREDENTIAL);
  };
