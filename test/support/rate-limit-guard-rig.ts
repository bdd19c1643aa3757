import { EventEmitter } from 'node:events';
import { Controller, type ExecutionContext, Get, type Type } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppMetrics } from '../../src/platform/common/metrics/app-metrics';
import { RoutePlans } from '../../src/platform/common/http/route-plan';
import type { AppConfig } from '../../src/platform/config/app-config';
import { MemoryRateLimitStorage } from '../../src/platform/counters/memory-rate-limit.storage';
import type { BucketStorage } from '../../src/platform/counters/rate-limit-storage';
import type { RateLimitOverrides } from '../../src/rate-limiting/overrides/rate-limit-overrides';
import { LimitedCredentials } from '../../src/rate-limiting/limiter/limited-credentials';
import { type CredentialOwner, RateLimitCredentials } from '../../src/access/rules/rate-limit-credentials';
import { RateLimitGuard } from '../../src/rate-limiting/limiter/rate-limit.guard';
import { NoRateLimit, RateLimit } from '../../src/access/rules/rate-limit.decorator';
import { RateLimitPolicy } from '../../src/rate-limiting/limiter/rate-limit.policy';
import { ManualClock } from './manual-clock';
import { NO_OVERRIDES } from './no-overrides';
import type { RateLimitQuotas } from '../../src/rate-limiting/quotas/rate-limit-quotas';
import { NO_QUOTAS } from './no-quotas';

/** The rate-limit guard's unit specs' scene: a stub credential port, two controllers, a memory storage. */
export const LIMIT = 2;

export class StubCredentials extends RateLimitCredentials {
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
export class UsersController {
  @Get('me')
  me(): void {}
}

@Controller('webhooks')
@NoRateLimit()
export class WebhooksController {
  @Get()
  me(): void {}
}

/** A costly route: each request takes 3 of its bucket's 4 slots. */
@Controller('reports')
@RateLimit({ limits: { GET: 4 }, cost: 3 })
export class ReportsController {
  @Get()
  me(): void {}
}

/** A bucket far larger than the concurrency caps of the specs, so that only a cap refuses. */
@Controller('search')
@RateLimit({ limits: { GET: 100 } })
export class SearchController {
  @Get()
  me(): void {}
}

export const OWNER = {
  kind: 'jwt' as const,
  companyId: 7,
  credentialId: 'jti',
  sessionId: 'session-1',
  employee: { id: 3, email: 'ann@example.com' },
};

export function setUp(
  options: { storage?: BucketStorage; overrides?: RateLimitOverrides; quotas?: RateLimitQuotas; cap?: number } = {},
) {
  const plans = new RoutePlans(() => [UsersController, WebhooksController, ReportsController, SearchController]);
  const policy = new RateLimitPolicy(plans, { rateLimitScale: 1 } as AppConfig);
  plans.onApplicationBootstrap();
  const credentials = new StubCredentials();
  const metrics = new AppMetrics();
  const clock = new ManualClock('2025-01-01T00:00:00Z');
  const counters = options.storage ?? new MemoryRateLimitStorage(clock);
  const limited = new LimitedCredentials(clock);
  const overrides = options.overrides ?? NO_OVERRIDES;
  const config = { concurrencyLimit: options.cap ?? 20 } as AppConfig;
  const quotas = options.quotas ?? NO_QUOTAS;
  const guard = new RateLimitGuard(counters, policy, credentials, metrics, overrides, limited, quotas, config);
  return { guard, credentials, counters, metrics, limited };
}

/** A request's context; `response` stands for Node's response (`closed`, and its `close` event). */
export function request(controller: Type = UsersController, ip = '203.0.113.7') {
  const headers = new Map<string, unknown>();
  const response = Object.assign(new EventEmitter(), { closed: false });
  const context = new ExecutionContextHost(
    [
      { ip, method: 'GET', headers: {} } as unknown as FastifyRequest,
      {
        header: (name: string, value: unknown) => headers.set(name, value),
        getHeader: (name: string) => headers.get(name),
        raw: response,
      } as unknown as FastifyReply,
    ],
    controller,
    (controller.prototype as { me: Function }).me,
  );
  context.setType('http');
  /** The answer is over: Node's response emits `close` once. */
  const close = () => {
    response.closed = true;
    response.emit('close');
  };
  return { context: context as ExecutionContext, headers, response, close };
}
