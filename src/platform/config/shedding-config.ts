import { type Env, integer } from './env-values';

/**
 * Shedding load (docs/contract.md, "Beyond the bucket"): the bounds past which an instance is saturated and
 * answers its least important requests 503. 0 turns a bound off.
 */
export function readSheddingConfig(env: Env, nodeEnv: string) {
  return {
    shedMaxInFlight: integer(env, 'SHED_MAX_IN_FLIGHT', 256, 0, 1_000_000),
    // Off by default in tests: jest runs the app and its client in one event loop on a shared machine.
    shedMaxEventLoopDelayMs: integer(env, 'SHED_MAX_EVENT_LOOP_DELAY_MS', nodeEnv === 'test' ? 0 : 100, 0, 60_000),
  };
}
