import { isIP } from 'node:net';
import { ConfigError, type Env, integer, read } from './env-values';

/**
 * `false`: the client IP is the socket address. A number: how many proxy hops in front of the service are
 * believed. A list: the proxies (IPs or CIDRs) whose `X-Forwarded-For` is believed.
 */
export type TrustProxy = false | number | string[];

export function isCidrOrIp(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d+$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

function trustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10) throw new ConfigError('TRUST_PROXY', `hop count must be from 1 to 10, got "${raw}"`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isCidrOrIp(entry));
  if (bad !== undefined) {
    throw new ConfigError('TRUST_PROXY', `must be a hop count or a comma-separated list of IPs/CIDRs, got "${bad}"`);
  }
  return entries;
}

/** Whether `entry` is an http(s) origin written exactly as the URL standard serializes it (`https://a.example`). */
export function isExactOrigin(entry: string): boolean {
  try {
    const parsed = new URL(entry);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === entry;
  } catch {
    return false;
  }
}

function corsOrigins(env: Env): string[] {
  const entries = (read(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    // Browsers send the origin exactly so (no path, no trailing slash, default port omitted); anything else
    // would never match and silently refuse every request.
    if (!isExactOrigin(entry)) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `must be a comma-separated list of origins like https://app.example.com, got "${entry}"`,
      );
    }
  }
  return [...new Set(entries)];
}

/** Where the service listens, whom it believes about client addresses, which browser origins may call it. */
export function readNetworkConfig(env: Env, isProduction: boolean) {
  const host = read(env, 'HOST') ?? (isProduction ? '0.0.0.0' : '127.0.0.1');
  if (isIP(host) === 0 && host !== 'localhost') throw new ConfigError('HOST', `must be an IP address, got "${host}"`);
  return {
    host,
    port: integer(env, 'PORT', 3000, 0, 65535),
    trustProxy: trustProxy(env),
    corsOrigins: corsOrigins(env),
  };
}
