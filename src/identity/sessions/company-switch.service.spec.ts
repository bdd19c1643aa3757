import { ManualClock } from '../../../test/support/manual-clock';
import type { Principal } from '../../access/rules/principal';
import { MemoryRateLimitStorage } from '../../platform/counters/memory-rate-limit.storage';
import type { MembershipService } from '../../accounts/membership/membership.service';
import { CompanySwitchService, SWITCH_DRAIN_MS, SWITCH_LIMIT } from './company-switch.service';
import type { LoginResult } from './login-result';
import type { SessionTokens } from './session-tokens.service';

const principal = { employeeId: 7, companyId: 3 } as Principal;
const client = { ip: '203.0.113.9', userAgent: 'spec' };

describe('CompanySwitchService: the switch limit, on the injected clock', () => {
  let clock: ManualClock;
  let switched: number;
  let service: CompanySwitchService;

  beforeEach(() => {
    clock = new ManualClock('2026-11-01T03:00:00Z');
    switched = 0;
    const tokens = { switchCompany: async () => (switched++, {}) as LoginResult } as unknown as SessionTokens;
    service = new CompanySwitchService(tokens, {} as MembershipService, new MemoryRateLimitStorage(clock));
  });

  it('allows 10 switches at once, refuses the 11th with 429, and one more once 6 s have drained', async () => {
    for (let i = 0; i < SWITCH_LIMIT; i++) await service.switchCompany(principal, 4, client);
    await expect(service.switchCompany(principal, 4, client)).rejects.toMatchObject({
      code: 'error_rate_limit_exceed',
    });
    expect(switched).toBe(SWITCH_LIMIT);

    clock.advance(SWITCH_DRAIN_MS / SWITCH_LIMIT);
    await service.switchCompany(principal, 4, client);
    expect(switched).toBe(SWITCH_LIMIT + 1);
    await expect(service.switchCompany(principal, 4, client)).rejects.toMatchObject({
      code: 'error_rate_limit_exceed',
    });
  });

  it('counts per employee: another employee switches freely', async () => {
    for (let i = 0; i < SWITCH_LIMIT; i++) await service.switchCompany(principal, 4, client);
    await service.switchCompany({ ...principal, employeeId: 8 }, 4, client);
    expect(switched).toBe(SWITCH_LIMIT + 1);
  });
});
