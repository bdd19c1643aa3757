import { isIP } from 'node:net';
import type { AddressPolicy } from '../../platform/common/outbound/address-policy';
import {
  bareHost,
  type HostResolver,
  literalRefused,
  pinnedRequest,
} from '../../platform/common/outbound/pinned-request';

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
 * POSTs `body` with `headers` to `raw` as a {@link pinnedRequest}: only to addresses the policy allows, checked
 * where the socket connects. No redirect is followed: a 3xx is a failure. Never throws.
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
  const refused: PostOutcome = { ok: false, status: null, error: 'address not allowed' };
  if (literalRefused(url, policy)) return Promise.resolve(refused);
  const { request, refused: wasRefused } = pinnedRequest(
    url,
    {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'staff-auth-service/event-streams',
      },
      signal: AbortSignal.timeout(timeoutMs),
    },
    policy,
    resolve,
  );

  return new Promise<PostOutcome>((done) => {
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
      if (wasRefused()) return done(refused);
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
