import { Reflector } from '@nestjs/core';

/**
 * How important a route's requests are when an instance is saturated (docs/contract.md, "Shedding load"), most
 * important first: `health` (probes, metrics), `revocation` (logout and revocations), `sign_in` (logins,
 * refresh, the company switch), `read`, `write`. The least important are answered 503 first.
 */
export type LoadPriority = 'health' | 'revocation' | 'sign_in' | 'read' | 'write';

/** Most important first: the order the shedder gives way in, last to first. */
export const LOAD_PRIORITIES: readonly LoadPriority[] = ['health', 'revocation', 'sign_in', 'read', 'write'];

/**
 * The typed metadata behind the wrappers below; operations/shedding reads it once per route at start. A route
 * without one is a `read` (GET, HEAD) or a `write` (any other method). Use the wrappers on routes.
 */
export const LoadPriorityMetadata = Reflector.createDecorator<LoadPriority>();

/** Health probes and metrics: never shed. */
export const HealthPriority = () => LoadPriorityMetadata('health');

/** Logout and revocations: what ends a stolen session gets through an overload. */
export const RevocationPriority = () => LoadPriorityMetadata('revocation');

/** Logins, refresh and the company switch: served before reads and writes. */
export const SignInPriority = () => LoadPriorityMetadata('sign_in');
