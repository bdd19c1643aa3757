import { DataSource } from 'typeorm';
import { AuditRecorder } from '../src/audit/recorder/audit-recorder.service';
import { LoginPolicy } from '../src/identity/sessions/login-policy';
import { inTransactionRetryingRace, provision } from '../src/identity/sso/sso-provisioning';
import type { SsoConnection } from '../src/identity/sso/sso-connections';
import { createCompanies } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Two first sign-ins of one new person through SSO at the same moment (JIT on): both transactions create the
 * account; the one that loses the race on the e-mail's unique key runs again and finds it, so both sign-ins
 * succeed with the same account and one membership, instead of one answering 500. PostgreSQL only: the embedded
 * database runs one transaction at a time.
 */
describe('SSO JIT provisioning racing itself', () => {
  let t: TestApp;
  let connection: SsoConnection;

  beforeAll(async () => {
    // The loser's INSERT waits on the winner's uncommitted row for the winner's whole transaction; on a loaded
    // 2-core CI machine that wait outgrew the 1.5 s default query timeout once, which is a timeout, not the race.
    t = await startTestApp({ env: { DATABASE_QUERY_TIMEOUT_MS: '15000' } });
    const [company] = await createCompanies(t, 'Racing');
    connection = {
      companyId: company.id,
      issuer: 'https://idp.example',
      clientId: 'staff-auth',
      sealedSecret: 'unused',
      emailDomains: ['racing.example'],
      enforced: false,
      jit: { enabled: true, permissions: ['products:read'] },
    };
  });
  afterAll(() => t?.close());

  const client = { ip: '203.0.113.9', userAgent: 'race' };

  it('both first sign-ins get the one account; without the retry one of them fails', async () => {
    const dataSource = t.app.get(DataSource);
    const audit = t.app.get(AuditRecorder);
    const policy = t.app.get(LoginPolicy);
    const signIn = (email: string) =>
      inTransactionRetryingRace(dataSource, async (manager) => {
        const id = await provision(manager, audit, policy, connection, { email, name: null }, client);
        // Hold the transaction open a moment, so the other one meets this one's uncommitted row.
        await manager.query('SELECT pg_sleep(0.2)');
        return id;
      });
    const ids = await Promise.all([signIn('new.person@racing.example'), signIn('new.person@racing.example')]);
    expect(ids[0]).not.toBeNull();
    expect(ids[1]).toBe(ids[0]);
    const members = await dataSource.query('SELECT count(*)::int AS n FROM membership WHERE employee_id = $1', [
      ids[0],
    ]);
    expect(members[0].n).toBe(1);

    // The same race with a plain transaction: the loser's unique violation would have reached the caller.
    const plain = (email: string) =>
      dataSource.transaction(async (manager) => {
        const id = await provision(manager, audit, policy, connection, { email, name: null }, client);
        await manager.query('SELECT pg_sleep(0.2)');
        return id;
      });
    const outcomes = await Promise.allSettled([plain('other@racing.example'), plain('other@racing.example')]);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1);
  });
});
