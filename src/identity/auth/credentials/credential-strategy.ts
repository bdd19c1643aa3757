import { DiscoveryService } from '@nestjs/core';
import type { Principal } from '../../../access/rules/principal';
import type { ClientInfo } from '../../../platform/common/http/client-info';
import type { MemberCard } from '../../../accounts/membership/member-card';

/** What one look-up found; {@link CredentialService} turns it into a cache entry and a verdict. */
export type LookUpResult =
  /** `issuedAtMs`, `expiresAtMs`: the credential's own times, for introspection (an API key never expires). */
  | { status: 'valid'; principal: Principal; issuedAtMs: number; expiresAtMs: number }
  /**
   * `keep: false` when decided without the database (bad signature, malformed key id): deciding again is
   * cheaper than remembering, and a flood of such values must not fill the cache.
   */
  | { status: 'blacklisted' | 'not_found'; keep: boolean };

/**
 * One kind of credential (a JWT, an API key): recognises its form and looks it up. Strategies hold no cache and
 * no request state; {@link CredentialService} picks the first whose {@link accepts} says yes. A strategy is a
 * provider of the module owning the tables it reads, marked with {@link CredentialKind}: auth/ finds it at start
 * (CredentialStrategies) and imports nothing of it.
 */
export interface CredentialStrategy {
  /** Whether the `Authorization` value has this kind's form (docs/contract.md: `key:secret` is an API key). */
  accepts(header: string): boolean;
  /**
   * From memory only: whether the header proves it was issued by this service (a JWT with our valid signature),
   * so that looking it up cannot be abused by inventing values. API keys cannot prove that without the database.
   */
  vouchesFor(header: string): boolean;
  /** Verifies the credential and loads its principal; `headerHash` is the SHA-256 hex of the whole header. */
  lookUp(header: string, headerHash: string): Promise<LookUpResult>;
  /** Notes that the credential `credentialId` (a session's id for a JWT) was used at `at`, for lists people read. */
  recordUse(credentialId: string, at: Date): Promise<unknown>;
  /**
   * When the person behind `principal` last proved who they are (step-up routes only: one read, never cached, so
   * a reauthentication on another instance counts at once); `null` when unknown. Kinds without a person omit it.
   */
  provenAt?(principal: Principal): Promise<Date | null>;
  /**
   * Ends the principal's session for having been unused longer than its company's idle time-out (kinds with
   * sessions only); whether this call ended it (false: it had ended already).
   */
  endIdle?(principal: Principal, client: ClientInfo, at: Date): Promise<boolean>;
}

/**
 * Marks a provider as the {@link CredentialStrategy} of the principals of one kind, e.g. `@CredentialKind('jwt')`:
 * the strategy's {@link CredentialStrategy.recordUse} and {@link CredentialStrategy.provenAt} are asked for those.
 * One strategy per kind.
 */
export const CredentialKind = DiscoveryService.createDecorator<Principal['kind']>();

export const NOT_KEPT: LookUpResult = { status: 'not_found', keep: false };

/**
 * Who a credential belongs to: the accounts area's card of its owner (read after the credential's own row) and
 * the owner's passkey count, which each strategy reads with that row from src/identity/passkeys/.
 */
export function ownerOf(
  card: MemberCard,
  passkeys: number,
): Pick<Principal, 'employee' | 'company' | 'mfa' | 'policy'> {
  const owner: Pick<Principal, 'employee' | 'company' | 'mfa' | 'policy'> = {
    employee: card.employee,
    company: card.company,
    mfa: { totp: card.totp, passkeys: Number(passkeys ?? 0) },
  };
  if (card.policy !== undefined) owner.policy = card.policy;
  return owner;
}
