import { ConfigError, type Env, read } from './env-values';

const HOST = /^[a-z0-9.-]+(:\d+)?$|^\[[0-9a-f:]+\](:\d+)?$/;

/**
 * SSO_INSECURE_ISSUERS: hosts (`host` or `host:port`, as in a URL) whose OpenID issuer may be plain `http://`
 * (development and tests); every other issuer must be `https://`.
 */
export function readSsoConfig(env: Env) {
  const entries = (read(env, 'SSO_INSECURE_ISSUERS') ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const bad = entries.find((entry) => !HOST.test(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      'SSO_INSECURE_ISSUERS',
      `must be a comma-separated list of hosts (host[:port]), got "${bad}"`,
    );
  }
  return { ssoInsecureIssuers: entries };
}
