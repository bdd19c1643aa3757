import type { DataSource } from 'typeorm';
import { LIMIT, OWNER, request, setUp } from '../../../test/support/rate-limit-guard-rig';
import { ManualClock } from '../../../test/support/manual-clock';
import type { AppLogger } from '../../platform/common/logging/logger';
import { ApiError } from '../../platform/common/errors/api-error';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { MemoryRateLimitStorage } from '../../platform/counters/memory-rate-limit.storage';
import type { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { QuotaRule } from '../quotas/quota-records';
import { RateLimitQuotas } from '../quotas/rate-limit-quotas';
import type { RateLimitGuard } from './rate-limit.guard';

/** 10:59:57 UTC: three seconds before the hour ends. */
const START = '2030-05-06T10:59:57Z';

describe('RateLimitGuard with an operator quota (memory storage, injected clock)', () => {
  const quotaed = (rules: Array<Partial<QuotaRule>>) => {
    const clock = new ManualClock(START);
    const storage = new MemoryRateLimitStorage(clock);
    const metrics = new AppMetrics();
    const quotas = new RateLimitQuotas(
      {} as DataSource,
      clock,
      {} as RevocationBus,
      storage,
      { warn: () => undefined } as unknown as AppLogger,
      metrics,
    );
    const base = { companyId: 7, apiKeyId: null, per: 'hour' as const, limit: 3 };
    quotas.replace(rules.map((rule, index) => ({ ...base, id: index + 1, ...rule })));
    const set = setUp({ storage, quotas });
    set.credentials.owner = OWNER;
    return { ...set, clock, quotas, metrics };
  };

  /** One request: its status, headers and Retry-After. */
  const send = async (guard: RateLimitGuard) => {
    const { context, headers } = request();
    try {
      await guard.canActivate(context);
      return { status: 200, headers, retryAfter: undefined };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const retryAfter = error.headers['retry-after'];
      return { status: 429, headers, retryAfter };
    }
  };

  it('admits exactly the quota in the UTC hour, then 429 with Retry-After until the hour ends; a new hour counts again', async () => {
    const { guard, clock, metrics } = quotaed([{ limit: 3 }]);
    clock.set('2030-05-06T10:59:50Z');
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const answer = await send(guard);
      seen.push(answer.status);
      clock.advance(1000); // the bucket (2 per 3 s) drains; the quota does not
      if (i === 0) {
        expect(answer.headers.get('ratelimit-policy')).toBe(`"get-users";q=${LIMIT};w=3, "hour";q=3;w=3600`);
        expect(answer.headers.get('ratelimit')).toBe('"get-users";r=1;t=2, "hour";r=2;t=10');
      }
      if (i === 3) {
        expect(answer.retryAfter).toBe('7'); // at 10:59:53, until 11:00:00
        expect(answer.headers.get('ratelimit')).toMatch(/"hour";r=0;t=7$/);
      }
    }
    expect(seen).toEqual([200, 200, 200, 429]);
    expect(await metrics.registry.metrics()).toMatch(/^rate_limit_quota_refused_total 1$/m);
    // 11:00:01: a new window.
    clock.set('2030-05-06T11:00:01Z');
    const next = await send(guard);
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit')).toMatch(/"hour";r=2;t=3599$/);
  });

  it('Retry-After runs to the end of the day for a day quota', async () => {
    const { guard } = quotaed([{ per: 'day', limit: 1 }]);
    expect((await send(guard)).status).toBe(200);
    const refused = await send(guard);
    expect(refused.status).toBe(429);
    // 10:59:57 → midnight UTC: 13 h 3 s.
    expect(refused.retryAfter).toBe(String(13 * 3600 + 3));
    expect(refused.headers.get('ratelimit-policy')).toMatch(/, "day";q=1;w=86400$/);
  });

  it("a bucket's 429 takes one too and carries the quota's items; the bucket's Retry-After stays", async () => {
    const { guard } = quotaed([{ limit: 10 }]);
    const statuses = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push(await send(guard));
    expect(statuses.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(statuses[2].retryAfter).toBe('2');
    expect(statuses[2].headers.get('ratelimit')).toMatch(/"hour";r=7;t=3$/);
  });

  it("shows one item per period: the company's or the key's, whichever has less left; both count", async () => {
    const { guard, credentials } = quotaed([{ limit: 5 }, { apiKeyId: 'key-1', limit: 1 }, { per: 'day', limit: 100 }]);
    credentials.owner = { ...OWNER, kind: 'api_key', credentialId: 'key-1', sessionId: null };
    const first = await send(guard);
    expect(first.headers.get('ratelimit')).toBe('"get-users";r=1;t=2, "hour";r=0;t=3, "day";r=99;t=46803');
    expect((await send(guard)).status).toBe(429);
    // Another credential of the company: the company's hour has two gone, not the key's.
    credentials.owner = OWNER;
    expect((await send(guard)).headers.get('ratelimit')).toMatch(/"hour";r=2;t=3, "day";r=97;t=46803$/);
  });

  it("never counts a request without a known owner, nor another company's", async () => {
    const { guard, credentials, quotas } = quotaed([{ limit: 1, companyId: 8 }]);
    for (let i = 0; i < 2; i++) expect((await send(guard)).headers.get('ratelimit')).not.toMatch(/hour/);
    credentials.owner = { ...OWNER, companyId: 8 };
    expect((await quotas.peek(credentials.owner))[0]).toMatchObject({ hits: 0 });
    credentials.owner = undefined;
    credentials.known = '-';
    expect((await send(guard)).headers.get('ratelimit')).not.toMatch(/hour/);
  });

  it('counts a credential seen for the first time once its look-up names the owner', async () => {
    const { guard, credentials } = quotaed([{ limit: 1 }]);
    credentials.known = undefined;
    credentials.vouched = true;
    const first = await send(guard);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/"hour";r=0;t=3$/);
    expect((await send(guard)).status).toBe(429);
  });

  it('asks the storage for the quota and the bucket in the same turn: no round trip after another', async () => {
    const { guard, counters } = quotaed([{ limit: 5 }, { per: 'day', limit: 50 }]);
    const calls: string[] = [];
    const storage = counters as MemoryRateLimitStorage;
    const admit = storage.admit.bind(storage);
    const hitWindow = storage.hitWindow.bind(storage);
    storage.admit = (...args) => (calls.push('bucket'), admit(...args));
    storage.hitWindow = (...args) => (calls.push('quota'), hitWindow(...args));
    const { context } = request();
    const decided = guard.canActivate(context);
    // Nothing awaited yet: both counts are already asked for.
    expect(calls).toEqual(['quota', 'quota', 'bucket']);
    await decided;
  });
});
