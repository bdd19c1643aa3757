import type { LoadPriority } from '../../access/rules/load-priority.decorator';

/** The event loop's current delay, in ms (event-loop-lag.ts; a unit spec's fake). */
export interface LagSource {
  lagMs(): number;
}

/**
 * The share of a bound at which each priority starts being shed, in percent: writes first (at 70 % of the
 * bound), then reads (80 %), logins (90 %), logout and revocations (at the bound). Health is never shed. The
 * gaps keep room for what matters more: while writes and reads are turned away, the requests in flight (or the
 * loop's delay) stay below the point where logins and logouts would be.
 */
export const SHED_AT_PERCENT: Readonly<Record<Exclude<LoadPriority, 'health'>, number>> = {
  write: 70,
  read: 80,
  sign_in: 90,
  revocation: 100,
};

export interface SaturationBounds {
  /** Requests in flight on this instance; 0: not a bound. */
  maxInFlight: number;
  /** The event loop's delay in ms; 0: not a bound. */
  maxEventLoopDelayMs: number;
}

/**
 * Whether the instance is saturated for a request of a given priority: its requests in flight, or its event
 * loop's delay, has reached that priority's share of the operator's bound. The thresholds are computed once;
 * a request pays two comparisons (three with the loop's bound) when nothing is shed.
 */
export class SaturationDetector {
  private inFlight = 0;
  private readonly inFlightAt: Record<LoadPriority, number>;
  private readonly delayAt: Record<LoadPriority, number>;
  /** The lowest thresholds (the writes'): below both, nothing is shed. */
  private readonly firstInFlight: number;
  private readonly firstDelay: number;

  constructor(
    bounds: SaturationBounds,
    private readonly lag: LagSource,
  ) {
    const at = (bound: number, priority: LoadPriority) =>
      bound <= 0 || priority === 'health' ? Infinity : (bound * SHED_AT_PERCENT[priority]) / 100;
    const thresholds = (bound: number) => ({
      health: Infinity,
      revocation: at(bound, 'revocation'),
      sign_in: at(bound, 'sign_in'),
      read: at(bound, 'read'),
      write: at(bound, 'write'),
    });
    this.inFlightAt = thresholds(bounds.maxInFlight);
    this.delayAt = thresholds(bounds.maxEventLoopDelayMs);
    this.firstInFlight = this.inFlightAt.write;
    this.firstDelay = this.delayAt.write;
  }

  /** Whether any request would be shed now (the writes' threshold is reached): read first, on every request. */
  saturated(): boolean {
    return this.inFlight >= this.firstInFlight || (this.firstDelay !== Infinity && this.lag.lagMs() >= this.firstDelay);
  }

  /** Whether a request of `priority` is shed now. The requests in flight do not include this one. */
  sheds(priority: LoadPriority): boolean {
    return this.inFlight >= this.inFlightAt[priority] || this.lag.lagMs() >= this.delayAt[priority];
  }

  /** An admitted request starts; {@link leave} when its answer is sent or its connection closes. */
  enter(): void {
    this.inFlight++;
  }

  leave(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }
}
