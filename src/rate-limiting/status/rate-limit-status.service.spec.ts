import { All, Controller, Delete, Get, Post } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ManualClock } from '../../../test/support/manual-clock';
import { NO_OVERRIDES } from '../../../test/support/no-overrides';
import { Auth, Public } from '../../access/rules/auth.decorator';
import { AuthGuard } from '../../identity/auth/auth.guard';
import type { CredentialService } from '../../identity/auth/credentials/credential.service';
import type { Principal } from '../../access/rules/principal';
import { RoutePlans } from '../../platform/common/http/route-plan';
import type { AppConfig } from '../../platform/config/app-config';
import { MemoryRateLimitStorage } from '../../platform/counters/memory-rate-limit.storage';
import { RateLimitCredentials } from '../../access/rules/rate-limit-credentials';
import { counterKey } from '../limiter/rate-limit-key';
import { NoRateLimit, RateLimit } from '../../access/rules/rate-limit.decorator';
import { RateLimitPolicy } from '../limiter/rate-limit.policy';
import { RateLimitStatusService } from './rate-limit-status.service';
import { NO_QUOTAS } from '../../../test/support/no-quotas';

const HASH = '0123456789abcdef';

class StubCredentials extends RateLimitCredentials {
  knownTokenHash = () => HASH;
  vouchedFor = () => true;
  knownOwner = () => undefined;
  tokenHash = () => Promise.resolve(HASH);
}

@Controller('widgets')
@RateLimit({ limits: { POST: 10 } })
class WidgetsController {
  @Get()
  @Auth({ permission: 'products:read' })
  list(): void {}

  // Same bucket as list (GET widgets) with a smaller capacity: the list shows the smaller one.
  @Get('export')
  @Auth({ permission: 'products:read' })
  @RateLimit({ limits: { GET: 5 } })
  exportAll(): void {}

  @Post()
  @Auth({ permission: 'products:write' })
  create(): void {}

  @Delete(':id')
  @Auth({ jwtOnly: true })
  remove(): void {}

  @Get('hook')
  @Public()
  @NoRateLimit()
  hook(): void {}

  @All('any')
  @Public()
  any(): void {}

  // No access rule: the auth guard refuses it to everyone, so it is nobody's to plan with.
  @Post('forgotten')
  forgotten(): void {}
}

const principal = (kind: Principal['kind'], permissions: Principal['permissions']) =>
  ({ kind, permissions }) as Principal;

function setUp() {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const plans = new RoutePlans(() => [WidgetsController]);
  const policy = new RateLimitPolicy(plans, { rateLimitScale: 1 } as AppConfig);
  const auth = new AuthGuard(plans, {} as CredentialService, clock);
  plans.onApplicationBootstrap();
  const counters = new MemoryRateLimitStorage(clock);
  const service = new RateLimitStatusService(
    plans,
    auth,
    policy,
    new StubCredentials(),
    counters,
    NO_OVERRIDES,
    NO_QUOTAS,
  );
  const request = { ip: '192.0.2.1', method: 'GET' } as FastifyRequest;
  return { service, counters, request };
}

describe('RateLimitStatusService', () => {
  it('lists the counted pairs whose routes the principal may call, the smallest capacity of a shared bucket', async () => {
    const { service, request } = setUp();
    const all = await service.list(request, principal('jwt', ['*']));
    expect(all.limits).toEqual([
      { method: 'DELETE', group: 'widgets', capacity: 3, period_seconds: 3, remaining: 3, override: null },
      { method: 'GET', group: 'widgets', capacity: 5, period_seconds: 3, remaining: 5, override: null },
      { method: 'POST', group: 'widgets', capacity: 10, period_seconds: 3, remaining: 10, override: null },
    ]);
  });

  it('leaves out what the permissions or the credential kind do not allow', async () => {
    const { service, request } = setUp();
    const reader = await service.list(request, principal('api_key', ['products:read']));
    expect(reader.limits.map((l) => `${l.method} ${l.group}`)).toEqual(['GET widgets']);
  });

  it("reads this caller's bucket without counting on it", async () => {
    const { service, counters, request } = setUp();
    const key = counterKey(`192.0.2.1|POST|widgets|${HASH}`);
    for (let i = 0; i < 4; i++) await counters.increment(key, 3000, 10, 0, 'default');
    const post = async () =>
      (await service.list(request, principal('jwt', ['*']))).limits.find((l) => l.method === 'POST');
    expect((await post())?.remaining).toBe(6);
    expect((await post())?.remaining).toBe(6);
    // Another client address of the same credential has a bucket of its own.
    const elsewhere = await service.list({ ...request, ip: '192.0.2.2' } as FastifyRequest, principal('jwt', ['*']));
    expect(elsewhere.limits.find((l) => l.method === 'POST')?.remaining).toBe(10);
  });
});
