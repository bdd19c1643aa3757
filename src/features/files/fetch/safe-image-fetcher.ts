import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../platform/config/app-config';
import { normalizeMediaType, sanitizeFileName, sniffImageType } from '../file-metadata';
import { FileTooLargeError, isLocalDiskError, StagingArea, type StagedFile } from '../storage/staging-area';
import { AddressPolicy } from '../../../platform/common/outbound/address-policy';
import {
  HOST_RESOLVER,
  literalRefused,
  pinnedRequest,
  type HostResolver,
} from '../../../platform/common/outbound/pinned-request';

/** The URL cannot be fetched; the message is meant for the client and names no address it did not send. */
export class FetchRefusedError extends Error {
  override name = 'FetchRefusedError';
}

export interface FetchedImage {
  staged: StagedFile;
  /** What the bytes are (sniffed), not what the server claimed. */
  contentType: string;
  name: string;
}

export const MAX_REDIRECTS = 3;
const MAX_URL_LENGTH = 2048;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches an image from a client-supplied URL without becoming a proxy into the private network (SSRF): each
 * request is a {@link pinnedRequest}. Redirects are followed by hand, each hop through the same path.
 * One deadline covers every hop and the body; the body is bounded in bytes and must prove to be an image.
 */
@Injectable()
export class SafeImageFetcher {
  private readonly policy: AddressPolicy;

  constructor(
    private readonly config: AppConfig,
    private readonly staging: StagingArea,
    @Inject(HOST_RESOLVER) private readonly resolveHost: HostResolver,
  ) {
    this.policy = new AddressPolicy(config.filesFetchAllowlist);
  }

  /** The image at `rawUrl`, staged; the caller owns (and must discard) the staged file. */
  async fetch(rawUrl: string): Promise<FetchedImage> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.config.filesFetchTimeoutMs);
    try {
      return await this.follow(parseTarget(rawUrl), deadline.signal);
    } catch (error) {
      if (error instanceof FetchRefusedError || isLocalDiskError(error)) throw error;
      if (error instanceof FileTooLargeError) throw this.tooLarge();
      if (deadline.signal.aborted) {
        throw new FetchRefusedError(`The image did not arrive within ${this.config.filesFetchTimeoutMs} ms.`);
      }
      // Connection refused, reset, TLS failure, unresolvable name: one answer, so it is no port or name scanner.
      throw new FetchRefusedError('The image could not be fetched from the URL.');
    } finally {
      clearTimeout(timer);
    }
  }

  private async follow(first: URL, signal: AbortSignal): Promise<FetchedImage> {
    let url = first;
    for (let hop = 0; ; hop++) {
      const response = await this.request(url, hop, signal);
      if (!REDIRECT_STATUSES.has(response.statusCode ?? 0)) return this.receive(url, response, signal);
      response.destroy();
      if (hop === MAX_REDIRECTS) throw new FetchRefusedError(`The URL redirects more than ${MAX_REDIRECTS} times.`);
      const location = response.headers.location;
      if (!location) throw new FetchRefusedError('The URL answered a redirect without a Location.');
      url = parseTarget(location, url);
    }
  }

  private request(url: URL, hop: number, signal: AbortSignal): Promise<IncomingMessage> {
    const notAllowed = () =>
      new FetchRefusedError(
        hop === 0
          ? 'The URL points to an address that is not allowed (only public internet addresses are).'
          : 'The URL redirects to an address that is not allowed (only public internet addresses are).',
      );
    if (literalRefused(url, this.policy)) return Promise.reject(notAllowed());
    const headers = {
      accept: 'image/png, image/jpeg, image/gif, image/webp;q=0.9, image/*;q=0.5',
      'accept-encoding': 'identity',
      'user-agent': 'staff-auth-service/files (addimagefromurl)',
    };
    const { request, refused } = pinnedRequest(url, { method: 'GET', headers, signal }, this.policy, this.resolveHost);
    return new Promise((resolve, reject) => {
      request.once('response', (response) => {
        // Errors reach the body's consumer (the staging pipeline); until it is attached none may go unheard.
        response.on('error', () => undefined);
        resolve(response);
      });
      request.on('error', (error) => reject(refused() ? notAllowed() : error));
      request.end();
    });
  }

  private async receive(url: URL, response: IncomingMessage, signal: AbortSignal): Promise<FetchedImage> {
    const status = response.statusCode ?? 0;
    const declared = normalizeMediaType(response.headers['content-type']);
    const length = Number(response.headers['content-length']);
    const refusal =
      status < 200 || status > 299
        ? new FetchRefusedError(`The URL answered HTTP ${status} instead of an image.`)
        : !declared?.startsWith('image/')
          ? new FetchRefusedError('The URL did not answer with an image (its Content-Type is not image/*).')
          : length > this.config.filesMaxBytes
            ? this.tooLarge()
            : undefined;
    if (refusal) {
      response.destroy();
      throw refusal;
    }

    const staged = await this.staging.stage(response, this.config.filesMaxBytes, signal);
    const type = sniffImageType(staged.head);
    if (type === null) {
      await this.staging.discard(staged.path);
      throw new FetchRefusedError('The URL did not answer with a PNG, JPEG, GIF or WebP image.');
    }
    return { staged, contentType: type.contentType, name: nameFromUrl(url, type.extension) };
  }

  private tooLarge(): FetchRefusedError {
    return new FetchRefusedError(`The image is larger than the limit of ${this.config.filesMaxBytes} bytes.`);
  }
}

/** A URL the fetcher may request: absolute, http or https, without credentials, of a sane length. */
function parseTarget(raw: string, base?: URL): URL {
  const subject = base ? 'The URL redirects to a URL that' : 'The URL';
  if (raw.length > MAX_URL_LENGTH) {
    throw new FetchRefusedError(`${subject} is longer than ${MAX_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new FetchRefusedError(`${subject} is not a valid absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError(`${subject} does not use http or https, the only schemes fetched.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusedError(`${subject} carries a user name or password, which is not accepted.`);
  }
  return url;
}

/** The last path segment (`/a/cat.png?x` → `cat.png`), or `image.<ext>` when the path names nothing. */
function nameFromUrl(url: URL, extension: string): string {
  const segment =
    url.pathname
      .split('/')
      .filter((part) => part !== '')
      .pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed escape is kept as written; sanitizing still applies.
  }
  return sanitizeFileName(decoded, `image.${extension}`);
}
