import type { IncomingMessage } from 'node:http';
import type { AddressPolicy } from './address-policy';
import { type HostResolver, literalRefused, pinnedRequest } from './pinned-request';

/** The request could not be made under the outbound policy: a refused address, scheme, size or URL. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
  readonly code = 'EOUTBOUND';
}

export interface PinnedFetchOptions {
  policy: AddressPolicy;
  resolveHost: HostResolver;
  /** The whole request's budget: connect, send, answer and body. */
  timeoutMs: number;
  /** A larger answer fails instead of filling memory. */
  maxBodyBytes: number;
  userAgent: string;
}

type HeadersInput = ConstructorParameters<typeof Headers>[0];
type BodyInput = NonNullable<ConstructorParameters<typeof Response>[0]>;

/** What a library hands its custom fetch (openid-client's `CustomFetchOptions`, jose's fetch options). */
export type FetchInit = {
  method?: string;
  headers?: HeadersInput;
  body?: BodyInput | null;
  signal?: AbortSignal | null;
};

/**
 * `fetch` for libraries that take one of their own (openid-client's and jose's `customFetch`), made of
 * {@link pinnedRequest}: only addresses the policy allows, checked where the socket connects; no redirect followed
 * (a 3xx is the answer, which such libraries refuse); one deadline over everything; the body read whole, bounded.
 */
export function pinnedFetch(options: PinnedFetchOptions): (url: string, init?: FetchInit) => Promise<Response> {
  return async (raw, init = {}) => {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefused('only http and https');
    if (url.username !== '' || url.password !== '') throw new OutboundRefused('no credentials in the URL');
    if (literalRefused(url, options.policy)) throw new OutboundRefused('address not allowed');
    const body = init.body === undefined || init.body === null ? undefined : await bodyBytes(init.body);
    const headers: Record<string, string> = {
      'user-agent': options.userAgent,
      ...Object.fromEntries(new Headers(init.headers ?? {}).entries()),
      // The body is handed over as received: nothing here decompresses.
      'accept-encoding': 'identity',
    };
    if (body !== undefined) {
      headers['content-length'] = String(body.byteLength);
      if (init.body instanceof URLSearchParams) headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const { request, refused } = pinnedRequest(
      url,
      { method: init.method ?? 'GET', headers, signal },
      options.policy,
      options.resolveHost,
    );
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', (error) => reject(refused() ? new OutboundRefused('address not allowed') : error));
      request.end(body);
    });
    const status = response.statusCode ?? 0;
    const content = await readBounded(response, options.maxBodyBytes);
    const answerHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        answerHeaders.append(name, one);
      }
    }
    const empty = status === 204 || status === 304 || (status >= 100 && status < 200);
    return new Response(empty ? null : new Uint8Array(content), { status, headers: answerHeaders });
  };
}

async function bodyBytes(body: BodyInput): Promise<Buffer> {
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(body.toString());
  return Buffer.from(await new Response(body).arrayBuffer());
}

function readBounded(response: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        response.destroy();
        reject(new OutboundRefused(`the answer is larger than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () => resolve(Buffer.concat(chunks)));
    response.once('error', reject);
    response.once('close', () => {
      if (!response.complete) reject(new Error('the answer ended early'));
    });
  });
}
