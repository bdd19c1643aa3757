import { QueryCounter } from '../src/platform/database/query-counter';
import { type Account, authed, createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * What a working-company switch costs in database statements, read where TypeORM hands every statement to the
 * QueryCounter (the database is real; the counter is only watched). The switch checks the membership once,
 * in the transaction that revokes the old token and issues the new one; a refresh checks it once too.
 */
describe('company switch: statements sent', () => {
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let account: Account;

  /** The statements `work` sends, after letting in-flight writes (last-used, notices) settle. */
  const statementsOf = async (work: () => Promise<unknown>): Promise<string[]> => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sent: string[] = [];
    // TypeORM passes each statement's text to the logger; QueryCounter itself only counts them.
    const counter = QueryCounter.prototype as unknown as { logQuery(query: string): void };
    const spy = jest.spyOn(counter, 'logQuery').mockImplementation((query: string) => {
      QueryCounter.total++;
      sent.push(query);
    });
    try {
      await work();
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      spy.mockRestore();
    }
    return sent;
  };
  /** Statements reading the membership table: the membership checks. */
  const membershipReads = (sent: string[]) => sent.filter((sql) => /\bFROM\s+"?membership"?/i.test(sql));
  /** The statements of the work itself, without the revocation notice to other instances (PostgreSQL only). */
  const ownStatements = (sent: string[]) => sent.filter((sql) => !/pg_notify/.test(sql));

  /** A logged-in session whose JWT the credential cache already knows, so the guard sends nothing. */
  const warmSession = async (companyId: number): Promise<LoginBody> => {
    const session = await login(t, account, companyId);
    await authed(t, session.jwt).get('/v1/users/me').expect(200);
    return session;
  };

  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock('2026-11-24T03:00:00Z') });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    account = await createAccount(t, [alpha.id, beta.id], ['*']);
  }, 180_000);
  afterAll(() => t?.close());

  it('a switch checks the membership once, in one transaction of 10 statements', async () => {
    const session = await warmSession(alpha.id);
    let status = 0;
    const sent = await statementsOf(async () => {
      status = (await authed(t, session.jwt).post('/v1/users/changeworkingcompany', { company_id: beta.id })).status;
    });
    expect(status).toBe(200);
    expect(membershipReads(sent)).toHaveLength(1);
    // BEGIN, membership (with company and employee), session lock, the company's policy (its address list and
    // token lifetime), the company's sign-in rule (SSO enforcement), revoke, session update, token insert, audit
    // insert (both companies' rows in one statement), COMMIT.
    expect(ownStatements(sent)).toHaveLength(10);
  });

  it('a refused switch (not a member) sends no write', async () => {
    const [other] = await createCompanies(t, 'Other');
    const session = await warmSession(alpha.id);
    let status = 0;
    const sent = await statementsOf(async () => {
      status = (await authed(t, session.jwt).post('/v1/users/changeworkingcompany', { company_id: other.id })).status;
    });
    expect(status).toBe(403);
    expect(membershipReads(sent)).toHaveLength(1);
    expect(ownStatements(sent).filter((sql) => /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql))).toEqual([]);
  });

  it('a refresh checks the membership once', async () => {
    const session = await warmSession(alpha.id);
    let status = 0;
    const sent = await statementsOf(async () => {
      status = (await t.http().post('/v1/users/refreshtoken').send({ refresh_token: session.refresh_token })).status;
    });
    expect(status).toBe(200);
    expect(membershipReads(sent)).toHaveLength(1);
  });
});
