import { DataSource } from 'typeorm';
import { removeMember } from '../src/staff/users/member-removal';
import { authed, createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import { expectError } from './support/expectations';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * A company switch racing what could make it wrong: another switch with the same token, and the removal of the
 * membership it switches into. On PostgreSQL, where two transactions really run at once.
 */
describe('company switch races', () => {
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };

  const switchTo = (session: LoginBody, companyId: number) =>
    authed(t, session.jwt).post('/v1/users/changeworkingcompany', { company_id: companyId });

  beforeAll(async () => {
    t = await startTestApp();
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    // Keeps a `*` holder in Beta, so a removal is never refused as the last one.
    await createAccount(t, [beta.id], ['*']);
  }, 180_000);
  afterAll(() => t?.close());

  it('two switches with one token: one succeeds, the other is refused as blacklisted', async () => {
    const account = await createAccount(t, [alpha.id, beta.id], ['*']);
    const session = await login(t, account, alpha.id);
    await authed(t, session.jwt).get('/v1/users/me').expect(200);
    const answers = await Promise.all([switchTo(session, beta.id), switchTo(session, beta.id)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    expectError(
      answers.find((res) => res.status === 400)!,
      400,
      'error_jwt_blacklisted',
    );
    const switched = answers.find((res) => res.status === 200)!.body as LoginBody;
    await authed(t, switched.jwt).get('/v1/users/me').expect(200);
  });

  it('a switch into a company whose removal is under way waits for it, then is refused', async () => {
    const account = await createAccount(t, [alpha.id, beta.id], ['*']);
    const session = await login(t, account, alpha.id);
    await authed(t, session.jwt).get('/v1/users/me').expect(200);

    const removal = t.app.get(DataSource).createQueryRunner();
    await removal.connect();
    await removal.startTransaction();
    let switched: Promise<{ status: number; body: unknown }> | undefined;
    try {
      expect(await removeMember(removal.manager, account.id, beta.id, new Date())).not.toBeNull();
      let settled = false;
      switched = switchTo(session, beta.id).then((res) => {
        settled = true;
        return res;
      });
      // The membership check waits on the removal's lock of the membership row instead of reading it as kept.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await removal.commitTransaction();
    } finally {
      if (removal.isTransactionActive) await removal.rollbackTransaction();
      await removal.release();
    }
    const res = await switched!;
    expectError(res, 403, 'error_company_not_member');
    // Nothing was issued for Beta, and the Alpha token goes on.
    const [{ count }] = await t.app.get(DataSource).query<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM issued_token
          WHERE company_id = $1 AND session_id = $2`,
      [beta.id, session.session_id],
    );
    expect(count).toBe(0);
    await authed(t, session.jwt).get('/v1/users/me').expect(200);
  });
});
