import { AddressPolicy } from '../../platform/common/outbound/address-policy';
import { pinnedFetch } from '../../platform/common/outbound/pinned-fetch';
import type { HostResolver } from '../../platform/common/outbound/pinned-request';

/** How long the service waits for the provider on any one request; past it the provider counts as down. */
export const PROVIDER_TIMEOUT_SECONDS = 5;
/** Discovery documents, key sets, token and UserInfo answers are small; a larger answer is a failure. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The host of an SSO_INSECURE_ISSUERS entry (`host` or `host:port`), as a URL's hostname spells it. */
function hostOf(entry: string): string {
  return new URL(`http://${entry}`).hostname;
}

/**
 * The `fetch` of every request to a provider (discovery, JWKS, token, UserInfo): the outbound address policy of
 * event streams and addimagefromurl (src/platform/common/outbound), so no loopback, private, link-local or other
 * special-use address is reached in any spelling unless its host is one of SSO_INSECURE_ISSUERS (development
 * and tests); no redirect followed; {@link PROVIDER_TIMEOUT_SECONDS} for everything.
 */
export function providerFetch(insecureIssuers: readonly string[], resolveHost: HostResolver) {
  return pinnedFetch({
    policy: new AddressPolicy(insecureIssuers.map(hostOf)),
    resolveHost,
    timeoutMs: PROVIDER_TIMEOUT_SECONDS * 1000,
    maxBodyBytes: MAX_ANSWER_BYTES,
    userAgent: 'staff-auth-service/sso',
  });
}

/** Why `issuer` cannot be a connection's issuer (`http://` only for the hosts of SSO_INSECURE_ISSUERS); or null. */
export function issuerProblem(issuer: string, insecureIssuers: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'issuer must be an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'issuer must not carry a user name or password';
  if (url.search !== '' || url.hash !== '') return 'issuer must not have a query or a fragment';
  if (url.protocol === 'https:') return null;
  // An entry names a host (any port) or a host:port.
  if (url.protocol === 'http:' && (insecureIssuers.includes(url.host) || insecureIssuers.includes(url.hostname))) {
    return null;
  }
  return 'issuer must be an https:// URL';
}
