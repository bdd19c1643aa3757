import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy';

/** Every address of a host name, as `dns.lookup(name, { all: true })` gives them. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (`/etc/hosts`, then DNS), in the order it returns. */
export const systemHostResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Injection token of the {@link HostResolver} (tests replace it to make a name resolve where they need). */
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/** The URL's host as a resolver or the policy takes it: an IPv6 literal without its brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Whether the URL's host is an IP literal the policy refuses (literals never reach a lookup). */
export function literalRefused(url: URL, policy: AddressPolicy): boolean {
  const host = bareHost(url);
  return isIP(host) !== 0 && policy.refusal(host, host) !== null;
}

class AddressRefused extends Error {
  readonly code = 'EREFUSED';
}

export interface PinnedRequest {
  request: ClientRequest;
  /** Whether the request failed because an address was not allowed (not for another reason). */
  refused(): boolean;
}

/**
 * An HTTP(S) request to a client-supplied URL that cannot become a proxy into the private network (SSRF). The
 * address check happens where the connection is made: the socket asks this `lookup` for the host's addresses,
 * which refuses unless every one is allowed, so a DNS answer that changes after a check (rebinding) cannot slip
 * through; the socket's remote address is checked again once connected. A fresh connection each time: a pooled
 * socket would have been checked for another host. The caller checks IP literals first ({@link literalRefused}),
 * sends the body and listens for the outcome.
 */
export function pinnedRequest(
  url: URL,
  init: { method: string; headers: OutgoingHttpHeaders; signal: AbortSignal },
  policy: AddressPolicy,
  resolveHost: HostResolver,
): PinnedRequest {
  const host = bareHost(url);
  let refused = false;
  const lookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    allowedAddresses(hostname, host, family, policy, resolveHost).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => {
        if (error instanceof AddressRefused) refused = true;
        callback(error, options.all ? [] : '', 0);
      },
    );
  };
  const client = url.protocol === 'https:' ? https : http;
  const request = client.request({
    protocol: url.protocol,
    hostname: host,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method: init.method,
    headers: init.headers,
    agent: false,
    lookup,
    signal: init.signal,
  });
  request.once('socket', (socket) => {
    socket.once('connect', () => {
      if (socket.remoteAddress === undefined || policy.refusal(socket.remoteAddress, host) !== null) {
        refused = true;
        request.destroy(new AddressRefused('address not allowed'));
      }
    });
  });
  return { request, refused: () => refused };
}

/** The addresses of `hostname` if every one may be connected to; a name with one private address is refused. */
async function allowedAddresses(
  hostname: string,
  urlHost: string,
  family: number | undefined,
  policy: AddressPolicy,
  resolveHost: HostResolver,
): Promise<LookupAddress[]> {
  const addresses = await resolveHost(hostname);
  if (addresses.length === 0 || addresses.some(({ address }) => policy.refusal(address, urlHost) !== null)) {
    throw new AddressRefused('address not allowed');
  }
  const usable = family === 4 || family === 6 ? addresses.filter((entry) => entry.family === family) : addresses;
  if (usable.length === 0) throw Object.assign(new Error(`no IPv${family} address`), { code: 'ENOTFOUND' });
  return usable;
}
