import type { DataSource } from 'typeorm';
import { LIMIT, OWNER, request, setUp } from '../../../test/support/rate-limit-guard-rig';
import { ManualClock } from '../../../test/support/manual-clock';
import type { AppLogger } from '../../platform/common/logging/logger';
import type { OverrideRule } from '../overrides/override-table';
import { RateLimitOverrides } from '../overrides/rate-limit-overrides';
import type { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { RateLimitGuard } from './rate-limit.guard';

describe('RateLimitGuard with an operator override', () => {
  const logged: unknown[] = [];
  const overridden = (rule: Partial<OverrideRule>) => {
    const logger = { info: (fields: unknown) => logged.push(fields) } as unknown as AppLogger;
    const overrides = new RateLimitOverrides({} as DataSource, new ManualClock(), {} as RevocationBus, logger);
    const base = { id: 1, companyId: 7, apiKeyId: null, method: 'GET', group: 'users', expiresAtMs: null };
    overrides.replace([{ ...base, limit: 1, mode: 'enforce', ...rule }]);
    const set = setUp({ overrides });
    set.credentials.owner = OWNER;
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

  it('notes each refusal (and shadow refusal) of a known credential for the administration page', async () => {
    const enforced = overridden({ limit: 1 });
    await statuses(enforced.guard, 3);
    expect(enforced.limited.ofCompany(7)).toEqual([
      expect.objectContaining({ kind: 'jwt', credentialId: 'session-1', method: 'GET', group: 'users' }),
    ]);
    expect(enforced.limited.ofCompany(7)[0]).toMatchObject({
      refused: 2,
      shadowLimited: 0,
      employee: OWNER.employee,
    });
    const shadow = overridden({ limit: 1, mode: 'shadow' });
    await statuses(shadow.guard, 3);
    expect(shadow.limited.ofCompany(7)).toEqual([expect.objectContaining({ refused: 1, shadowLimited: 1 })]);
    const unknown = overridden({ limit: 1 });
    unknown.credentials.owner = undefined;
    await statuses(unknown.guard, LIMIT + 1);
    expect(unknown.limited.size).toBe(0);
  });
});
