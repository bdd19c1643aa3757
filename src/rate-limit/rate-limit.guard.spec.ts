import { Controller, type ExecutionContext, Get, type Type } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ManualClock } from '../../test/support/manual-clock';
import { NO_OVERRIDES } from '../../test/support/no-overrides';
import { ApiError } from '../common/errors/api-error';
import { type CredentialOwner, NO_CREDENTIAL, RateLimitCredentials } from './rate-limit-credentials';
import type { OverrideRule } from '../rate-limit-overrides/override-table';
import { RateLimitOverrides } from '../rate-limit-overrides/rate-limit-overrides';
import type { DataSource } from 'typeorm';
import type { RevocationBus } from '../revocation/revocation-bus';
import type { AppLogger } from '../common/logging/logger';
import { counterKey } from './rate-limit-key';
import { RateLimitGuard } from './rate-limit.guard';
import { NoRateLimit, RateLimit } from './rate-limit.decorator';
import { RateLimitPolicy } from './rate-limit.policy';
import { RoutePlans } from '../common/http/route-plan';
import type { AppConfig } from '../config/app-config';
import { MemoryRateLimitStorage } from '../counters/memory-rate-limit.storage';
import { AppMetrics } from '../common/metrics/app-metrics';
import type { BucketStorage } from '../counters/rate-limit-storage';

const LIMIT = 2;

class StubCredentials extends RateLimitCredentials {
  /** What memory knows of the header: a token hash, `-`, or nothing yet. */
  known: string | undefined = '0123456789abcdef';
  lookUps = 0;

  knownTokenHash(): string | undefined {
    return this.known;
  }

  owner: CredentialOwner | undefined = undefined;

  knownOwner(): CredentialOwner | undefined {
    return this.owner;
  }

  vouched = false;

  vouchedFor(): boolean {
    return this.vouched;
  }

  async tokenHash(): Promise<string> {
    this.lookUps++;
    return '0123456789abcdef';
  }
}

@Controller('users')
@RateLimit({ limits: { GET: LIMIT } })
class UsersController {
  @Get('me')
  me(): void {}
}

@Controller('webhooks')
@NoRateLimit()
class WebhooksController {
  @Get()
  me(): void {}
}

function setUp(options: { storage?: BucketStorage; overrides?: RateLimitOverrides } = {}) {
  const plans = new RoutePlans(() => [UsersController, WebhooksController]);
  const policy = new RateLimitPolicy(plans, { rateLimitScale: 1 } as AppConfig);
  plans.onApplicationBootstrap();
  const credentials = new StubCredentials();
  const metrics = new AppMetrics();
  const counters = options.storage ?? new MemoryRateLimitStorage(new ManualClock('2025-01-01T00:00:00Z'));
  const guard = new RateLimitGuard(counters, policy, credentials, metrics, options.overrides ?? NO_OVERRIDES);
  return { guard, credentials, counters, metrics };
}

function request(controller: Type = UsersController) {
  const headers = new Map<string, unknown>();
  const context = new ExecutionContextHost(
    [
      { ip: '203.0.113.7', method: 'GET', headers: {} } as unknown as FastifyRequest,
      { header: (name: string, value: unknown) => headers.set(name, value) } as unknown as FastifyReply,
    ],
    controller,
    (controller.prototype as { me: Function }).me,
  );
  context.setType('http');
  return { context: context as ExecutionContext, headers };
}

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
      increment: (...args) => {
        increments++;
        return memory.increment(...args);
      },
      peek: (...args) => memory.peek(...args),
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

  describe('with an operator override', () => {
    const logged: unknown[] = [];
    const overridden = (rule: Partial<OverrideRule>) => {
      const logger = { info: (fields: unknown) => logged.push(fields) } as unknown as AppLogger;
      const overrides = new RateLimitOverrides({} as DataSource, new ManualClock(), {} as RevocationBus, logger);
      const base = { id: 1, companyId: 7, apiKeyId: null, method: 'GET', group: 'users', expiresAtMs: null };
      overrides.replace([{ ...base, limit: 1, mode: 'enforce', ...rule }]);
      const set = setUp({ overrides });
      set.credentials.owner = { kind: 'jwt', companyId: 7, credentialId: 'jti' };
      return set;
    };
    const statuses = async (guard: RateLimitGuard, count: number) => {
      const seen: Array<number | string> = [];
      for (let i = 0; i < count; i++) {
        const { context, headers } = request();
        const ok = await Promise.resolve()
          .then(() => guard.canActivate(context))
          .then(
            () => true,
            () => false,
          );
        seen.push(ok ? (headers.get('x-rate-limit-limit') as number) : 429);
      }
      return seen;
    };

    it("enforce: the override's capacity replaces the table's, in the headers and the refusal", async () => {
      const { guard } = overridden({ limit: 1 });
      expect(await statuses(guard, 2)).toEqual([1, 429]);
    });

    it("applies to the company's credentials only, and never to a credential memory does not know", async () => {
      expect(await statuses(overridden({ limit: 1, companyId: 8 }).guard, 2)).toEqual([LIMIT, LIMIT]);
      const unknown = overridden({ limit: 1 });
      unknown.credentials.owner = undefined;
      expect(await statuses(unknown.guard, 2)).toEqual([LIMIT, LIMIT]);
    });

    it('shadow: the table decides; what the override would refuse is admitted, counted and logged once', async () => {
      logged.length = 0;
      const { guard, metrics } = overridden({ limit: 1, mode: 'shadow' });
      expect(await statuses(guard, 3)).toEqual([LIMIT, LIMIT, 429]);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/rate_limit_decisions_total\{group="users",outcome="shadow_limited"\} 1/);
      expect(logged).toEqual([expect.objectContaining({ identifier: '203.0.113.7|GET|users|0123456789abcdef' })]);
    });
  });
});
