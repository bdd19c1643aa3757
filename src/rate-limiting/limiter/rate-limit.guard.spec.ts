import { ManualClock } from '../../../test/support/manual-clock';
import { LIMIT, request, setUp, WebhooksController } from '../../../test/support/rate-limit-guard-rig';
import { ApiError } from '../../platform/common/errors/api-error';
import { MemoryRateLimitStorage } from '../../platform/counters/memory-rate-limit.storage';
import type { BucketStorage } from '../../platform/counters/rate-limit-storage';
import { NO_CREDENTIAL } from '../../access/rules/rate-limit-credentials';
import { counterKey } from './rate-limit-key';

describe('RateLimitGuard', () => {
  it("counts a credential judged from memory on its own counter, with the route's limit, 429 included", async () => {
    const { guard, credentials } = setUp();
    for (let i = 1; i <= LIMIT; i++) {
      const { context, headers } = request();
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(Object.fromEntries(headers)).toEqual({
        'x-rate-limit-limit': LIMIT,
        'x-rate-limit-remaining': LIMIT - i,
        'x-rate-limit-identifier': '203.0.113.7|GET|users|0123456789abcdef',
        // The bucket drains 2 per 3 s: 1.5 s per request, so 1 request is gone in 2 whole seconds, 2 in 3.
        'ratelimit-policy': '"get-users";q=2;w=3',
        ratelimit: `"get-users";r=${LIMIT - i};t=${Math.ceil((i * 3) / LIMIT)}`,
      });
    }
    const { context, headers } = request();
    await expect(guard.canActivate(context)).rejects.toThrow(ApiError);
    expect(headers.get('x-rate-limit-remaining')).toBe(0);
    // A refused request adds nothing: the full bucket is still 3 s from empty.
    expect(headers.get('ratelimit')).toBe('"get-users";r=0;t=3');
    expect(credentials.lookUps).toBe(0);
  });

  it('counts a credential memory cannot judge yet on `-` first, then looks it up once and counts it on its own', async () => {
    const { guard, credentials, counters } = setUp();
    credentials.known = undefined;
    const { context, headers } = request();
    const answer = guard.canActivate(context);
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBe(true);
    expect(credentials.lookUps).toBe(1);
    expect(headers.get('x-rate-limit-identifier')).toBe('203.0.113.7|GET|users|0123456789abcdef');
    // Counted under `-` first (the unjudged key's counter), then on its own.
    const noCredential = counterKey(`203.0.113.7|GET|users|${NO_CREDENTIAL}`);
    expect((await counters.peek(noCredential, 3000, LIMIT)).totalHits).toBe(1);
  });

  it('looks a JWT with our signature up before counting it, so its first request never touches `-`', async () => {
    const { guard, credentials, counters } = setUp();
    credentials.known = undefined;
    credentials.vouched = true;
    const { context, headers } = request();
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(credentials.lookUps).toBe(1);
    expect(headers.get('x-rate-limit-identifier')).toBe('203.0.113.7|GET|users|0123456789abcdef');
    const noCredential = counterKey(`203.0.113.7|GET|users|${NO_CREDENTIAL}`);
    expect((await counters.peek(noCredential, 3000, LIMIT)).totalHits).toBe(0);
  });

  it('refuses an unknown credential whose `-` counter is full without looking it up', async () => {
    const { guard, credentials } = setUp();
    credentials.known = NO_CREDENTIAL;
    for (let i = 0; i < LIMIT; i++) await guard.canActivate(request().context);
    credentials.known = undefined;
    const { context, headers } = request();
    await expect(guard.canActivate(context)).rejects.toBeInstanceOf(ApiError);
    expect(credentials.lookUps).toBe(0);
    expect(headers.get('x-rate-limit-identifier')).toBe(`203.0.113.7|GET|users|${NO_CREDENTIAL}`);
  });

  it('with counters that need I/O, answers after the one count, with the same headers and 429', async () => {
    const memory = new MemoryRateLimitStorage(new ManualClock('2025-01-01T00:00:00Z'));
    let increments = 0;
    const remote: BucketStorage = {
      increment: (...args) => memory.increment(...args),
      admit: (...args) => {
        increments++;
        return memory.admit(...args);
      },
      peek: (...args) => memory.peek(...args),
      leases: (key) => memory.leases(key),
    };
    const { guard } = setUp({ storage: remote });
    for (let i = 1; i <= LIMIT; i++) {
      const { context, headers } = request();
      const answer = guard.canActivate(context);
      expect(answer).toBeInstanceOf(Promise);
      await expect(answer).resolves.toBe(true);
      expect(headers.get('x-rate-limit-remaining')).toBe(LIMIT - i);
    }
    await expect(guard.canActivate(request().context)).rejects.toBeInstanceOf(ApiError);
    expect(increments).toBe(LIMIT + 1);
  });

  it('does not count a route exempt by @NoRateLimit()', async () => {
    const { guard, counters } = setUp();
    const { context, headers } = request(WebhooksController);
    expect(guard.canActivate(context)).toBe(true);
    expect(headers.size).toBe(0);
    expect((await counters.peek(counterKey('203.0.113.7|GET|webhooks|0123456789abcdef'), 3000, LIMIT)).totalHits).toBe(
      0,
    );
  });
});
