import { ManualClock } from '../../../test/support/manual-clock';
import { FakeAudit, FakeSessionStore, fakeIssuer, SECRET } from '../../../test/support/fake-sessions';
import type { AccountCheck } from '../auth/account-check.service';
import { ApiError } from '../../platform/common/errors/api-error';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import type { Employee } from '../../accounts/employee/employee.entity';
import type { MembershipService } from '../../accounts/membership/membership.service';
import { LoginService } from './login.service';
import { LoginPolicy } from './login-policy';

const ann = { id: 7, email: 'ann@acme.io', name: 'Ann' };
const acme = { id: 3, name: 'Acme' };
const client = { ip: '203.0.113.9', userAgent: 'spec' };

describe('LoginService (ports faked, clock injected)', () => {
  let clock: ManualClock;
  let store: FakeSessionStore;
  let audit: FakeAudit;
  let service: LoginService;
  let jwt: ReturnType<typeof fakeIssuer>['jwt'];
  let failures: string[];

  beforeEach(() => {
    // 2026-11-21 10:00 in Vietnam.
    clock = new ManualClock('2026-11-21T03:00:00Z');
    store = new FakeSessionStore();
    store.addMember(ann, acme);
    audit = new FakeAudit(store);
    failures = [];
    const accounts = {
      verifyAccount: async () => ({ ...ann, totpEnabledAt: null }) as unknown as Employee,
      recordFailure: async (_account: unknown, reason: string) => void failures.push(reason),
    };
    const memberships = {
      find: async (employeeId: number, companyId: number) =>
        store.members.has(`${employeeId}:${companyId}`) ? { employeeId, companyId } : null,
    };
    const issued = fakeIssuer(store);
    jwt = issued.jwt;
    service = new LoginService(
      store,
      accounts as unknown as AccountCheck,
      memberships as unknown as MembershipService,
      issued.issuer,
      clock,
      audit.asRecorder(),
      new AppMetrics(),
      LoginPolicy.of([]),
    );
  });

  it('opens a session at the clock’s time with a token until 23:59:59 Vietnam time 14 days later', async () => {
    const result = await service.login(ann.email, 'password', acme.id, client);

    expect(result.expires_at).toBe('2026-12-05T23:59:59+07:00');
    expect(result.company).toEqual(acme);
    expect(result.employee).toEqual(ann);
    const session = store.sessions.get(result.session_id)!;
    expect(session).toMatchObject({ employeeId: ann.id, companyId: acme.id, endedAt: null, ip: client.ip });
    expect(session.createdAt.toISOString()).toBe('2026-11-21T03:00:00.000Z');
    const claims = jwt.verify<{ sub: string; cid: number; sid: string; exp: number; iat: number }>(result.jwt, {
      secret: SECRET,
    });
    expect(claims).toMatchObject({ sub: String(ann.id), cid: acme.id, sid: result.session_id });
    expect(new Date(claims.exp * 1000).toISOString()).toBe('2026-12-05T16:59:59.000Z');
    expect(claims.iat).toBe(Date.parse('2026-11-21T03:00:00Z') / 1000);
    expect(store.tokensOf(result.session_id)).toHaveLength(1);
  });

  it('records login.succeeded in the transaction that opens the session', async () => {
    const result = await service.login(ann.email, 'password', acme.id, client);
    expect(audit.events).toEqual([
      expect.objectContaining({ type: 'login.succeeded', companyId: acme.id, sessionId: result.session_id }),
    ]);
    expect(audit.events[0].inTransaction).toBe(true);
  });

  it('refuses a company the account does not belong to: 403, no session, login.failed recorded', async () => {
    const refused = service.login(ann.email, 'password', 99, client);
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'error_company_not_member', status: 403 });
    expect(store.sessions.size).toBe(0);
    expect(store.tokens.size).toBe(0);
    expect(failures).toEqual(['not_member']);
  });
});
