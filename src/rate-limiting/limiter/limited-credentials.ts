import { Injectable } from '@nestjs/common';
import { Clock } from '../../platform/common/clock/clock';
import type { CredentialOwner } from '../../access/rules/rate-limit-credentials';

/** How far back the administration page looks (docs/contract.md: "limited in the last hour"). */
export const LIMITED_WINDOW_MS = 60 * 60 * 1000;
/** Credential × method × group entries kept; past this the least recently limited one is forgotten. */
export const MAX_LIMITED_ENTRIES = 10_000;

export type LimitedOutcome = 'limited' | 'shadow_limited';

/** One credential's refusals (or shadow refusals) on one method × group. */
export interface LimitedEntry {
  companyId: number;
  kind: 'jwt' | 'api_key';
  /** The login session for a JWT (its tokens change at every refresh), the key's id for an API key. */
  credentialId: string;
  employee: { id: number; email: string };
  method: string;
  group: string;
  refused: number;
  shadowLimited: number;
  firstAtMs: number;
  lastAtMs: number;
}

/**
 * Which valid credentials this instance refused (or would have, under a shadow override) in the last hour, for
 * the administration page. Only refusals are noted, so an admitted request never comes here. Memory is bounded:
 * a Map in least-recently-limited order, trimmed from its head when an entry is older than the window or the
 * count is over {@link MAX_LIMITED_ENTRIES}, so a flood of refusals costs a constant amount per refusal.
 */
@Injectable()
export class LimitedCredentials {
  private readonly entries = new Map<string, LimitedEntry>();

  constructor(private readonly clock: Clock) {}

  note(owner: CredentialOwner, method: string, group: string, outcome: LimitedOutcome): void {
    const nowMs = this.clock.nowMs();
    const credentialId = owner.kind === 'jwt' ? (owner.sessionId ?? owner.credentialId) : owner.credentialId;
    const key = `${owner.companyId}|${owner.kind}|${credentialId}|${method}|${group}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = {
        companyId: owner.companyId,
        kind: owner.kind,
        credentialId,
        employee: { id: owner.employee.id, email: owner.employee.email },
        method,
        group,
        refused: 0,
        shadowLimited: 0,
        firstAtMs: nowMs,
        lastAtMs: nowMs,
      };
    } else {
      // Moved to the tail: the Map's order stays least recently limited first.
      this.entries.delete(key);
    }
    if (outcome === 'limited') entry.refused += 1;
    else entry.shadowLimited += 1;
    entry.lastAtMs = nowMs;
    this.entries.set(key, entry);
    this.trim(nowMs);
  }

  /** The company's entries limited within the window, most recent first. */
  ofCompany(companyId: number): LimitedEntry[] {
    const nowMs = this.clock.nowMs();
    this.trim(nowMs);
    const found: LimitedEntry[] = [];
    for (const entry of this.entries.values()) if (entry.companyId === companyId) found.push({ ...entry });
    return found.reverse();
  }

  /** Entries held, for the bound's test. */
  get size(): number {
    return this.entries.size;
  }

  private trim(nowMs: number): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= MAX_LIMITED_ENTRIES && nowMs - entry.lastAtMs <= LIMITED_WINDOW_MS) return;
      this.entries.delete(key);
    }
  }
}
