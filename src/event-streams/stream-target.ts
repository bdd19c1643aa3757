import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from '../files/fetch/address-policy';
import type { HostResolver } from '../files/fetch/safe-image-fetcher';

const MAX_URL_LENGTH = 2048;
/** The receiver's answer is kept only as this much text of an error, never its body as such. */
const ERROR_MAX = 200;

/** Why a URL is not a stream target, for the client; `null` when it is one. */
export function urlProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  return null;
}

function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Whether every address the URL's host has now may be reached (public, or allow-listed). The deliverer checks
 * again where it connects; this is the early answer to the client that registers the URL.
 */
export async function addressAllowed(raw: string, policy: AddressPolicy, resolve: HostResolver): Promise<boolean> {
  const host = bareHost(new URL(raw));
  if (isIP(host) !== 0) return policy.refusal(host, host) === null;
  try {
    const addresses = await resolve(host);
    return addresses.length > 0 && addresses.every(({ address }) => policy.refusal(address, host) === null);
  } catch {
    return false;
  }
}

export interface PostOutcome {
  ok: boolean;
  /** The receiver's HTTP status; null when none came (refused, timed out, connection failed). */
  status: number | null;
  error: string | null;
}

/**
 * POSTs `body` with `headers` to `raw`, connecting only to addresses the policy allows (checked by the socket's
 * own lookup, so a DNS answer that changes after the check cannot slip through, and again once connected). No
 * redirect is followed: a 3xx is a failure. Never throws.
 */
export function postJson(
  raw: string,
  headers: Record<string, string>,
  body: string,
  policy: AddressPolicy,
  resolve: HostResolver,
  timeoutMs: number,
): Promise<PostOutcome> {
  const url = new URL(raw);
  const host = bareHost(url);
  const refused: PostOutcome = { ok: false, status: null, error: 'address not allowed' };
  if (isIP(host) !== 0 && policy.refusal(host, host) !== null) return Promise.resolve(refused);

  let refusal = false;
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || addresses.some(({ address }) => policy.refusal(address, host) !== null)) {
          refusal = true;
          callback(Object.assign(new Error('address not allowed'), { code: 'EREFUSED' }), options.all ? [] : '', 0);
        } else if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : '', 0),
    );
  };

  return new Promise<PostOutcome>((done) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'staff-auth-service/event-streams',
      },
      agent: false,
      lookup,
      signal: AbortSignal.timeout(timeoutMs),
    });
    request.once('socket', (socket) => {
      socket.once('connect', () => {
        if (socket.remoteAddress === undefined || policy.refusal(socket.remoteAddress, host) !== null) {
          refusal = true;
          request.destroy(new Error('address not allowed'));
        }
      });
    });
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status <= 299) {
        response.resume();
        return done({ ok: true, status, error: null });
      }
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        if (text.length >= ERROR_MAX) response.destroy();
      });
      const finish = () => done({ ok: false, status, error: shortError(`HTTP ${status}`, text) });
      response.once('end', finish);
      response.once('close', finish);
      response.once('error', finish);
    });
    request.once('error', (error: NodeJS.ErrnoException) => {
      if (refusal) return done(refused);
      const reason =
        error.name === 'TimeoutError' || error.name === 'AbortError'
          ? `no answer within ${timeoutMs} ms`
          : (error.code ?? 'connection failed');
      done({ ok: false, status: null, error: reason });
    });
    request.end(body);
  });
}

/** One line, printable, at most ERROR_MAX characters: what a deliveries list can show without being a proxy. */
function shortError(prefix: string, text: string): string {
  const cleaned = text.replace(/[^\x20-\x7e]+/g, ' ').trim();
  return (cleaned === '' ? prefix : `${prefix}: ${cleaned}`).slice(0, ERROR_MAX);
}
