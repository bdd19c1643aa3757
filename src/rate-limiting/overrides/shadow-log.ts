import type { Clock } from '../../platform/common/clock/clock';

/** A shadow decision is logged at most once per identifier in this time. */
export const SHADOW_LOG_INTERVAL_MS = 60_000;
/** Identifiers remembered; past this the memory starts over (one more line per identifier at worst). */
const MAX_REMEMBERED = 10_000;

/** Which identifiers had a shadow decision logged in the last minute, in bounded memory. */
export class ShadowLog {
  private readonly lastLoggedMs = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** True when this identifier's decision should be logged now (and remembers that it was). */
  due(identifier: string): boolean {
    const nowMs = this.clock.nowMs();
    const last = this.lastLoggedMs.get(identifier);
    if (last !== undefined && nowMs - last < SHADOW_LOG_INTERVAL_MS) return false;
    if (last === undefined && this.lastLoggedMs.size >= MAX_REMEMBERED) this.lastLoggedMs.clear();
    this.lastLoggedMs.set(identifier, nowMs);
    return true;
  }
}
