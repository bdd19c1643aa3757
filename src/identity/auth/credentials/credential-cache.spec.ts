import { ManualClock } from '../../../../test/support/manual-clock';
import { type CachedCredential, CredentialCache, STALE_IF_ERROR_MS } from './credential-cache';
import { JWT_PRINCIPAL } from '../../../../test/support/principals';

const FRESH_MS = 30_000;

const principal = JWT_PRINCIPAL;

const valid = (clock: ManualClock): CachedCredential => ({
  status: 'valid',
  principal,
  issuedAtMs: clock.nowMs(),
  expiresAtMs: clock.nowMs() + 3_600_000,
  freshUntilMs: clock.nowMs() + FRESH_MS,
  tokenHash: '0123456789abcdef',
});
const notFound = (clock: ManualClock): CachedCredential => ({
  status: 'not_found',
  freshUntilMs: clock.nowMs() + FRESH_MS,
});

describe('CredentialCache bounds', () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock(Date.parse('2026-11-24T12:00:00Z'));
  });

  it('holds only the credentials seen recently under a steady stream of new tokens, not every token ever seen', () => {
    const cache = new CredentialCache();
    let peak = 0;
    // One new token a second for two hours: 7,200 distinct credentials, as logins and refreshes issue them.
    for (let second = 0; second < 7_200; second++) {
      cache.set(`jwt-${second}`, valid(clock), clock.nowMs());
      peak = Math.max(peak, cache.size);
      clock.advance(1_000);
    }
    const usefulSeconds = (FRESH_MS + STALE_IF_ERROR_MS) / 1_000;
    expect(peak).toBeLessThanOrEqual(usefulSeconds + 1);
    expect(cache.size).toBeGreaterThanOrEqual(usefulSeconds - 1);
    // What remains is the most recent, still answerable when the database is away.
    expect(cache.getStale('jwt-7199', clock.nowMs())).toBeDefined();
  });

  it('drops refused credentials once their freshness ends, and verified ones only after the stale window', () => {
    const cache = new CredentialCache();
    cache.set('verified', valid(clock), clock.nowMs());
    for (let i = 0; i < 100; i++) cache.set(`made-up-${i}`, notFound(clock), clock.nowMs());
    clock.advance(FRESH_MS + 1);
    // Later insertions sweep from the oldest; the verified entry, first in line, keeps its stale answer.
    for (let i = 0; i < 20; i++) cache.set(`new-${i}`, notFound(clock), clock.nowMs());
    expect(cache.size).toBe(121);
    expect(cache.getStale('verified', clock.nowMs())).toBeDefined();

    clock.advance(STALE_IF_ERROR_MS);
    for (let i = 0; i < 20; i++) cache.set(`newer-${i}`, notFound(clock), clock.nowMs());
    expect(cache.getStale('verified', clock.nowMs())).toBeUndefined();
    // 121 outlived entries, 8 at most per insertion: 16 insertions clear them; the last 20 remain.
    expect(cache.size).toBe(20);
  });

  it('never holds more than its cap when a flood of distinct credentials is all still fresh', () => {
    const cache = new CredentialCache(50);
    for (let i = 0; i < 1_000; i++) cache.set(`ak_${i}:x`, notFound(clock), clock.nowMs());
    expect(cache.size).toBe(50);
    expect(cache.get('ak_999:x', clock.nowMs())).toBeDefined();
    expect(cache.get('ak_0:x', clock.nowMs())).toBeUndefined();
  });
});
