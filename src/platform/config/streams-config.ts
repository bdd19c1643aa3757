import { type Env, integer } from './env-values';
import { hostAllowlist } from './files-config';

/** Security-event streams (docs/contract.md, "Other systems plug in"): where and how fast events are delivered. */
export function readStreamsConfig(env: Env) {
  return {
    streamsAllowlist: hostAllowlist(env, 'STREAMS_ALLOWLIST'),
    streamsDeliveryTimeoutMs: integer(env, 'STREAMS_DELIVERY_TIMEOUT_MS', 5000, 100, 30_000),
    streamsRetryBaseMs: integer(env, 'STREAMS_RETRY_BASE_MS', 5000, 1, 3_600_000),
    streamsPollMs: integer(env, 'STREAMS_POLL_MS', 250, 10, 60_000),
  };
}
