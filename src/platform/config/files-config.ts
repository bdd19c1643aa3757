import { ConfigError, type Env, integer, read } from './env-values';
import { isCidrOrIp } from './network-config';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Host names, IPs or CIDRs a server-side request may reach even when private (`FILES_FETCH_ALLOWLIST`, `STREAMS_ALLOWLIST`). */
export function hostAllowlist(env: Env, key: string): string[] {
  const entries = (read(env, key) ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const bad = entries.find((entry) => !isCidrOrIp(entry) && !HOST_NAME.test(entry));
  if (bad !== undefined) {
    throw new ConfigError(key, `must be a comma-separated list of host names, IPs or CIDRs, got "${bad}"`);
  }
  return entries;
}

/** File uploads and the image fetcher of `addimagefromurl`. */
export function readFilesConfig(env: Env) {
  return {
    filesMaxBytes: integer(env, 'FILES_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    filesFetchTimeoutMs: integer(env, 'FILES_FETCH_TIMEOUT_MS', 5000, 100, 60_000),
    filesFetchAllowlist: hostAllowlist(env, 'FILES_FETCH_ALLOWLIST'),
  };
}
