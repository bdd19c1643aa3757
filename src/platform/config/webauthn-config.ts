import { ConfigError, type Env, read } from './env-values';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** An origin belongs to the relying party when its host is the RP ID or a subdomain of it (WebAuthn §5.1.3). */
const withinRpId = (host: string, rpId: string) => host === rpId || host.endsWith(`.${rpId}`);

/**
 * The passkeys' relying party (docs/contract.md, Passkeys and step-up). Development default: `localhost` and the
 * origin the service listens on (`http://localhost:<PORT>`; browsers refuse an IP address as an RP ID). Outside
 * development set both: the default would match no real origin, so passkeys would fail closed, never open.
 */
export function readWebauthnConfig(env: Env, port: number) {
  const rpId = (read(env, 'WEBAUTHN_RP_ID') ?? 'localhost').toLowerCase();
  if (!HOST_NAME.test(rpId)) throw new ConfigError('WEBAUTHN_RP_ID', `must be a host name, got "${rpId}"`);
  const raw = read(env, 'WEBAUTHN_ORIGINS');
  const origins = raw === undefined ? [`http://${rpId}:${port}`] : raw.split(',').map((entry) => entry.trim());
  for (const entry of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(entry);
    } catch {
      parsed = undefined;
    }
    // Browsers send the origin exactly so; anything else would never match. https, except for localhost.
    const secure = parsed?.protocol === 'https:' || (parsed?.protocol === 'http:' && parsed.hostname === 'localhost');
    if (!parsed || parsed.origin !== entry || !secure || !withinRpId(parsed.hostname, rpId)) {
      throw new ConfigError(
        'WEBAUTHN_ORIGINS',
        `must be comma-separated https origins (http only for localhost) on ${rpId} or its subdomains, got "${entry}"`,
      );
    }
  }
  return { webauthnRpId: rpId, webauthnOrigins: [...new Set(origins)] };
}
