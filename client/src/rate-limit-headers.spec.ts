import { parseStructuredList, quotaExhaustedMs, readBucket, readConcurrency, retryAfterMs } from './rate-limit-headers';
import { RouteGroups } from './route-group';

describe('reading the rate-limit headers', () => {
  it('parses RFC 9651 lists of strings and tokens with parameters', () => {
    expect(parseStructuredList('"get-products";q=30;w=3, "post-files";q=30;w=3')).toEqual([
      { name: 'get-products', params: { q: '30', w: '3' } },
      { name: 'post-files', params: { q: '30', w: '3' } },
    ]);
    expect(parseStructuredList('default;q=10')).toEqual([{ name: 'default', params: { q: '10' } }]);
    expect(parseStructuredList('"a\\"b";flag')).toEqual([{ name: 'a"b', params: { flag: '?1' } }]);
    // Malformed: what was read before the fault is kept, nothing invented after it.
    expect(parseStructuredList('"unterminated;q=1')).toEqual([]);
    expect(parseStructuredList('"ok";q=1, (inner list)')).toEqual([{ name: 'ok', params: { q: '1' } }]);
  });

  it('prefers RateLimit-Policy and RateLimit for the request method, else X-Rate-Limit-*', () => {
    const both = new Headers({
      'ratelimit-policy': '"post-products";q=15;w=3, "get-products";q=12;w=6',
      ratelimit: '"get-products";r=4;t=2',
      'x-rate-limit-limit': '30',
      'x-rate-limit-remaining': '29',
      'x-rate-limit-identifier': '203.0.113.7|GET|products|9f86d081884c7d65',
    });
    expect(readBucket(both, 'GET')).toEqual({ group: 'products', capacity: 12, windowMs: 6000, remaining: 4 });
    const legacy = new Headers({
      'x-rate-limit-limit': '30',
      'x-rate-limit-remaining': '0',
      'x-rate-limit-identifier': '2001:db8::1|GET|orders|-',
    });
    expect(readBucket(legacy, 'GET')).toEqual({ group: 'orders', capacity: 30, windowMs: 3000, remaining: 0 });
    // A policy for another method, or one without q, is not ours: the X- headers stand.
    expect(readBucket(new Headers({ 'ratelimit-policy': '"get-x";w=3', 'x-rate-limit-limit': '5' }), 'GET')).toEqual({
      capacity: 5,
      windowMs: 3000,
      remaining: undefined,
    });
    expect(readBucket(new Headers(), 'GET')).toEqual({ windowMs: 3000, capacity: undefined, remaining: undefined });
  });

  it('reads Retry-After as seconds or an HTTP date, and one window when it is missing or unreadable', () => {
    const now = Date.parse('2026-11-10T03:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 10 Nov 2026 03:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers(), now)).toBe(3000);
  });

  it('names the bucket by method and the path segment after the version, then by what the server said', () => {
    const groups = new RouteGroups();
    expect(groups.keyOf('get', 'http://h/v1/users/invitations/3?x=1')).toBe('GET users');
    expect(groups.keyOf('GET', 'http://h/v1/products')).toBe('GET products');
    expect(groups.learn('GET', 'http://h/v1/products/7', 'catalogue')).toBe(true);
    expect(groups.keyOf('GET', 'http://h/v1/products')).toBe('GET catalogue');
    expect(groups.keyOf('POST', 'http://h/v1/products')).toBe('POST products');
    expect(groups.learn('GET', 'http://h/v1/products', 'catalogue')).toBe(false);
    expect(groups.learn('GET', 'http://h/v1/orders', undefined)).toBe(false);
  });

  it('reads a used-up quota from the RateLimit field: an "hour" or "day" item with r=0, the latest t', () => {
    const at = (ratelimit: string) => quotaExhaustedMs(new Headers({ ratelimit }));
    expect(at('"get-products";r=0;t=2')).toBeUndefined();
    expect(at('"get-products";r=3;t=2, "day";r=5;t=3600')).toBeUndefined();
    expect(at('"get-products";r=3;t=2, "hour";r=0;t=42')).toBe(42_000);
    expect(at('"get-products";r=3;t=2, "hour";r=0;t=42, "day";r=0;t=3600')).toBe(3_600_000);
    expect(quotaExhaustedMs(new Headers())).toBeUndefined();
  });

  it('reads the concurrency cap from "concurrency";q=, and a 429 with "concurrency";r=0 as a refusal by it', () => {
    const now = Date.parse('2026-11-10T03:00:00Z');
    const refusal = new Headers({
      'ratelimit-policy': '"get-products";q=30;w=3, "concurrency";q=20',
      ratelimit: '"get-products";r=29;t=1, "concurrency";r=0',
      'retry-after': '1',
    });
    expect(readConcurrency(refusal, 429, now)).toEqual({ cap: 20, refused: true, retryAfterMs: 1000 });
    // The bucket's own item is still read as the bucket (its remaining count: the request was not charged).
    expect(readBucket(refusal, 'GET')).toEqual({ group: 'products', capacity: 30, windowMs: 3000, remaining: 29 });
    // A bucket's 429 (no concurrency item at r=0), an admitted answer, and nonsense are not refusals by the cap.
    const bucket = new Headers({ 'ratelimit-policy': '"get-products";q=30;w=3', ratelimit: '"get-products";r=0;t=1' });
    expect(readConcurrency(bucket, 429, now)).toEqual({ cap: undefined, refused: false });
    expect(readConcurrency(refusal, 200, now)).toEqual({ cap: 20, refused: false });
    const zero = new Headers({ 'ratelimit-policy': '"concurrency";q=0', ratelimit: '"concurrency";r=1' });
    expect(readConcurrency(zero, 429, now)).toEqual({ cap: undefined, refused: false });
  });
});
