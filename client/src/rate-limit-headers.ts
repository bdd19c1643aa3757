/**
 * What one answer says about its rate-limit bucket. Two dialects, read in this order:
 * - `RateLimit-Policy: "<method>-<group>";q=<capacity>;w=<seconds>` and `RateLimit: "<method>-<group>";r=<remaining>;t=…`
 *   (draft-ietf-httpapi-ratelimit-headers, RFC 9651 structured fields), when the server sends them;
 * - `X-Rate-Limit-Limit`, `X-Rate-Limit-Remaining` and `X-Rate-Limit-Identifier` (`{ip}|{METHOD}|{group}|{hash}`),
 *   which every `/v1` answer carries today. Their window is the source's 3 seconds.
 */
export interface BucketInfo {
  /** The API group the server counted the request in, when the answer names it. */
  group?: string;
  /** Requests the bucket admits at once (and drains per window). */
  capacity?: number;
  windowMs: number;
  /** Requests the bucket would still admit at once right after this one. */
  remaining?: number;
}

/** The source's §8 window: a full bucket drains in 3 seconds. */
export const DEFAULT_WINDOW_MS = 3000;

interface PolicyItem {
  name: string;
  params: Record<string, string>;
}

/**
 * The members of an RFC 9651 List whose items are strings or tokens with parameters, e.g.
 * `"get-products";q=30;w=3, "x";q=1`. Inner lists and byte sequences are not used by these fields and end the parse.
 */
export function parseStructuredList(value: string): PolicyItem[] {
  const items: PolicyItem[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (value[i] === ' ' || value[i] === '\t') i++;
  };
  const bareItem = (): string | undefined => {
    if (value[i] === '"') {
      let out = '';
      for (i++; i < value.length; i++) {
        if (value[i] === '\\') out += value[++i] ?? '';
        else if (value[i] === '"') return (i++, out);
        else out += value[i];
      }
      return undefined; // unterminated string
    }
    const match = /^[A-Za-z0-9*:/!#$%&'+\-.^_`|~]+/.exec(value.slice(i));
    if (!match) return undefined;
    i += match[0].length;
    return match[0];
  };
  while (i < value.length) {
    skipSpaces();
    const name = bareItem();
    if (name === undefined) return items;
    const params: Record<string, string> = {};
    while (value[i] === ';') {
      i++;
      skipSpaces();
      const key = /^[a-z*][a-z0-9_\-.*]*/.exec(value.slice(i))?.[0];
      if (!key) return items;
      i += key.length;
      if (value[i] === '=') {
        i++;
        const parameter = bareItem();
        if (parameter === undefined) return items;
        params[key] = parameter;
      } else params[key] = '?1';
    }
    items.push({ name, params });
    skipSpaces();
    if (i < value.length && value[i++] !== ',') return items;
  }
  return items;
}

const positiveInteger = (text: string | null | undefined): number | undefined => {
  if (text == null || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
};

/** The bucket an answer describes, from whichever dialect it carries; empty when it carries neither. */
export function readBucket(headers: Headers, method: string): BucketInfo {
  const info: BucketInfo = { windowMs: DEFAULT_WINDOW_MS };
  const identifier = headers.get('x-rate-limit-identifier')?.split('|');
  if (identifier && identifier.length >= 4) info.group = identifier[identifier.length - 2];
  info.capacity = positiveInteger(headers.get('x-rate-limit-limit'));
  info.remaining = positiveInteger(headers.get('x-rate-limit-remaining'));

  const prefix = `${method.toLowerCase()}-`;
  const ours = (item: PolicyItem) => item.name.toLowerCase().startsWith(prefix);
  const policy = parseStructuredList(headers.get('ratelimit-policy') ?? '').find(ours);
  const capacity = positiveInteger(policy?.params.q);
  if (policy && capacity !== undefined && capacity > 0) {
    info.group = policy.name.slice(prefix.length);
    info.capacity = capacity;
    const window = positiveInteger(policy.params.w);
    if (window) info.windowMs = window * 1000;
    const current = parseStructuredList(headers.get('ratelimit') ?? '').find((item) => item.name === policy.name);
    const remaining = positiveInteger(current?.params.r);
    if (remaining !== undefined) info.remaining = remaining;
  }
  if (info.capacity === 0) info.capacity = undefined;
  return info;
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). Absent or unreadable: one
 * window, what the source's §8 tells a client to wait.
 */
export function retryAfterMs(headers: Headers, now: number): number {
  const value = headers.get('retry-after')?.trim();
  if (value && /^\d+$/.test(value)) return Number(value) * 1000;
  const date = value ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? DEFAULT_WINDOW_MS : Math.max(0, date - now);
}

/** The IETF items the service names by a quota's period (docs/contract.md, "Beyond the bucket": quotas). */
const QUOTA_PERIODS = new Set(['hour', 'day']);

/**
 * How long, in ms, until a used-up quota of the credential's company or API key frees up, from an answer's
 * `RateLimit` field: its `"hour"` or `"day"` item with `r=0` (the latest `t` of those); `undefined` when no quota
 * is used up. Unlike a bucket's, a quota's refusal holds for every method × group.
 */
export function quotaExhaustedMs(headers: Headers): number | undefined {
  let waitSeconds: number | undefined;
  for (const item of parseStructuredList(headers.get('ratelimit') ?? '')) {
    if (!QUOTA_PERIODS.has(item.name) || positiveInteger(item.params.r) !== 0) continue;
    const t = positiveInteger(item.params.t);
    if (t !== undefined) waitSeconds = Math.max(waitSeconds ?? 0, t);
  }
  return waitSeconds === undefined ? undefined : waitSeconds * 1000;
}

/** What an answer says of its credential's concurrency cap (docs/contract.md, "Beyond the bucket"). */
export interface ConcurrencyInfo {
  /** The cap, from a `"concurrency";q=<cap>` item of `RateLimit-Policy`. */
  cap?: number;
  /** A 429 of the cap (`RateLimit: …, "concurrency";r=0`), not of the bucket: the bucket was not charged. */
  refused: boolean;
  /** How long the credential's other requests should wait, unless one of its own ends first. */
  retryAfterMs?: number;
}

/** The IETF item the service names its concurrency cap by. */
const CONCURRENCY_POLICY = 'concurrency';

/** The concurrency cap an answer announces, and whether it is a refusal by that cap. */
export function readConcurrency(headers: Headers, status: number, now: number): ConcurrencyInfo {
  const policy = parseStructuredList(headers.get('ratelimit-policy') ?? '').find((i) => i.name === CONCURRENCY_POLICY);
  const cap = positiveInteger(policy?.params.q);
  const info: ConcurrencyInfo = { cap: cap === 0 ? undefined : cap, refused: false };
  if (status !== 429) return info;
  const state = parseStructuredList(headers.get('ratelimit') ?? '').find((item) => item.name === CONCURRENCY_POLICY);
  if (positiveInteger(state?.params.r) !== 0) return info;
  return { ...info, refused: true, retryAfterMs: retryAfterMs(headers, now) };
}
