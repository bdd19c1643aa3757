import { Controller, Get } from '@nestjs/common';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { RoutePlans } from '../../platform/common/http/route-plan';
import type { AppConfig } from '../../platform/config/app-config';
import { RateLimitPolicy } from './rate-limit.policy';
import { ManualClock } from '../../../test/support/manual-clock';
import { ReportsController, request, SearchController, setUp } from '../../../test/support/rate-limit-guard-rig';
import { ApiError } from '../../platform/common/errors/api-error';
import { MemoryRateLimitStorage } from '../../platform/counters/memory-rate-limit.storage';
import { NO_CREDENTIAL } from '../../access/rules/rate-limit-credentials';
import { counterKey } from './rate-limit-key';

const CAP = 3;
const HASH = '0123456789abcdef';

/** The guard's refusal, or undefined when it admitted the request. */
async function refusal(answer: boolean | Promise<boolean>): Promise<ApiError | undefined> {
  try {
    expect(await answer).toBe(true);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('RateLimitGuard: the concurrency cap, in memory', () => {
  let storage: MemoryRateLimitStorage;
  let rig: ReturnType<typeof setUp>;

  beforeEach(() => {
    storage = new MemoryRateLimitStorage(new ManualClock('2025-01-01T00:00:00Z'));
    rig = setUp({ storage, cap: CAP });
  });

  const send = (ip?: string) => {
    const scene = request(SearchController, ip);
    return { ...scene, answer: refusal(rig.guard.canActivate(scene.context)) };
  };

  it('admits CAP requests of one credential in flight; one more is a 429 with the concurrency policy appended', async () => {
    const held = [send(), send(), send()];
    for (const scene of held) expect(await scene.answer).toBeUndefined();
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(CAP);

    const over = send();
    const error = await over.answer;
    expect(error?.getStatus()).toBe(429);
    expect(error?.headers).toEqual({ 'retry-after': '1' });
    // The X-Rate-Limit-* headers describe the bucket, which the refused request did not touch (3 of 100 used).
    expect(Object.fromEntries(over.headers)).toEqual({
      'x-rate-limit-limit': 100,
      'x-rate-limit-remaining': 97,
      'x-rate-limit-identifier': `203.0.113.7|GET|search|${HASH}`,
      'ratelimit-policy': `"get-search";q=100;w=3, "concurrency";q=${CAP}`,
      ratelimit: '"get-search";r=97;t=1, "concurrency";r=0',
    });
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(CAP);
    // The refused one held nothing: its close returns nothing.
    over.close();
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(CAP);
  });

  it('returns the lease when the answer closes, once, however often close is heard', async () => {
    const [a, b, c] = [send(), send(), send()];
    await Promise.all([a.answer, b.answer, c.answer]);
    a.close();
    a.response.emit('close');
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(CAP - 1);
    const next = send();
    expect(await next.answer).toBeUndefined();
    expect(await send().answer).toBeInstanceOf(ApiError);
    for (const scene of [b, c, next]) scene.close();
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(0);
    expect(storage.leasesHeld.size).toBe(0);
  });

  it('returns at once the lease of a request whose client left before the guard answered', async () => {
    const scene = request(SearchController);
    scene.response.closed = true;
    await expect(rig.guard.canActivate(scene.context)).resolves.toBe(true);
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(0);
  });

  it('holds a credential to one cap whatever its IP, and unauthenticated requests to one per client IP', async () => {
    const spread = [send('198.51.100.1'), send('198.51.100.2'), send('198.51.100.3')];
    await Promise.all(spread.map((scene) => scene.answer));
    expect(await send('198.51.100.4').answer).toBeInstanceOf(ApiError);

    rig.credentials.known = NO_CREDENTIAL;
    const anonymous = [send('192.0.2.1'), send('192.0.2.1'), send('192.0.2.1')];
    for (const scene of anonymous) expect(await scene.answer).toBeUndefined();
    expect(await send('192.0.2.1').answer).toBeInstanceOf(ApiError);
    expect(await send('192.0.2.2').answer).toBeUndefined();
    expect(storage.leasesHeld.count('cc:ip:192.0.2.1')).toBe(CAP);
    expect(storage.leasesHeld.count('cc:ip:192.0.2.2')).toBe(1);
  });

  it("moves a new API key's lease from its client IP to its own once it is known valid", async () => {
    rig.credentials.known = undefined;
    const scene = send();
    expect(await scene.answer).toBeUndefined();
    expect(rig.credentials.lookUps).toBe(1);
    expect(storage.leasesHeld.count(`cc:${HASH}`)).toBe(1);
    expect(storage.leasesHeld.count('cc:ip:203.0.113.7')).toBe(0);
    scene.close();
    expect(storage.leasesHeld.size).toBe(0);
  });

  it('counts a refusal by the cap as limited in the metrics', async () => {
    await Promise.all([send().answer, send().answer, send().answer]);
    await send().answer;
    const text = await rig.metrics.registry.metrics();
    expect(text).toMatch(/rate_limit_decisions_total\{group="search",outcome="limited"\} 1/);
  });
});

describe('RateLimitGuard: cost', () => {
  it("takes a route's cost in slots of its bucket, and refuses when the slots left are fewer", async () => {
    const { guard, counters } = setUp();
    const first = request(ReportsController);
    await expect(guard.canActivate(first.context)).resolves.toBe(true);
    // 3 of 4 slots taken at once.
    expect(first.headers.get('x-rate-limit-remaining')).toBe(1);
    const second = request(ReportsController);
    await expect(guard.canActivate(second.context)).rejects.toBeInstanceOf(ApiError);
    expect(second.headers.get('x-rate-limit-remaining')).toBe(1);
    const key = counterKey(`203.0.113.7|GET|reports|${HASH}`);
    expect((await counters.peek(key, 3000, 4)).totalHits).toBe(3);
  });
});

describe('a route cost that cannot be paid', () => {
  it.each([0, 2.5, 5])('stops the start when a route declares cost %p on a bucket of 4', (cost) => {
    @Controller('bad')
    @RateLimit({ limits: { GET: 4 }, cost })
    class BadController {
      @Get()
      me(): void {}
    }
    const plans = new RoutePlans(() => [BadController]);
    new RateLimitPolicy(plans, { rateLimitScale: 1 } as AppConfig);
    expect(() => plans.onApplicationBootstrap()).toThrow(
      `@RateLimit({ cost: ${cost} }) on GET /bad: a cost is a whole number from 1 to 4`,
    );
  });
});
