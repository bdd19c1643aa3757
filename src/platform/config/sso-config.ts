import { isIP } from 'node:net';
import { ConfigError, type Env, read } from './env-values';
import { isExactOrigin } from './network-config';

const HOST = /^[a-z0-9.-]+(:\d+)?$|^\[[0-9a-f:]+\](:\d+)?$/;

const list = (env: Env, key: string) =>
  (read(env, key) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/**
 * SSO_INSECURE_ISSUERS: hosts (`host` or `host:port`, as in a URL) whose OpenID issuer may be plain `http://`
 * (development and tests); every other issuer must be `https://`.
 */
function insecureIssuers(env: Env): string[] {
  const entries = list(env, 'SSO_INSECURE_ISSUERS').map((entry) => entry.toLowerCase());
  const bad = entries.find((entry) => !HOST.test(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      'SSO_INSECURE_ISSUERS',
      `must be a comma-separated list of hosts (host[:port]), got "${bad}"`,
    );
  }
  return entries;
}

/**
 * PUBLIC_URL: the service's external origin (`https://staff.example.com`), the base of every URL it gives another
 * party (the SSO redirect URI). An origin exactly, as a browser and a provider see it: no path, no trailing slash.
 */
function publicUrl(env: Env): string | undefined {
  const raw = read(env, 'PUBLIC_URL');
  if (raw !== undefined && !isExactOrigin(raw)) {
    throw new ConfigError('PUBLIC_URL', `must be an origin like https://staff.example.com (no path), got "${raw}"`);
  }
  return raw;
}

/**
 * DNS_SERVERS: the resolvers domain verification asks (comma-separated `ip[:port]`, an IPv6 address in brackets
 * with a port); unset, the system's.
 */
function dnsServers(env: Env): string[] {
  const entries = list(env, 'DNS_SERVERS');
  const bad = entries.find((entry) => !isServerAddress(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      'DNS_SERVERS',
      `must be a comma-separated list of DNS server addresses (ip, ip:port or [ipv6]:port), got "${bad}"`,
    );
  }
  return entries;
}

/** `1.2.3.4`, `1.2.3.4:5353`, `::1`, `[::1]:5353`: what node's dns `setServers` takes (addresses, no names). */
function isServerAddress(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const match = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry) ?? /^([^:[\]]+):(\d{1,5})$/.exec(entry);
  if (!match || isIP(match[1]) === 0) return false;
  const port = match[2] === undefined ? 53 : Number(match[2]);
  return port >= 1 && port <= 65535;
}

export function readSsoConfig(env: Env) {
  return { ssoInsecureIssuers: insecureIssuers(env), publicUrl: publicUrl(env), dnsServers: dnsServers(env) };
}
