import { DataSource } from 'typeorm';
import { ACCOUNT_EXISTS } from '../src/accounts/employee/employee.service';
import { auditRows } from './support/audit-rows';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md, POST /v1/users: an e-mail that already has an account (in any company) is 409
 * `error_conflict` saying to invite it instead; nothing else about that account is revealed, and nothing changes.
 */
describe('POST /v1/users for an e-mail that already has an account', () => {
  let t: TestApp;
  let alpha: { id: number };
  let gamma: { id: number };
  let adminJwt: string;

  const counts = async () =>
    (
      await t.app
        .get(DataSource)
        .query('SELECT (SELECT count(*) FROM employee) AS e, (SELECT count(*) FROM membership) AS m')
    )[0];

  beforeAll(async () => {
    t = await startTestApp();
    [alpha, , gamma] = await createCompanies(t, 'Alpha', 'Beta', 'Gamma');
    adminJwt = (
      await login(t, await createAccount(t, [alpha.id], ['users:write', 'users:read', 'products:read']), alpha.id)
    ).jwt;
  });
  afterAll(() => t?.close());

  it.each([
    ['only in another company', () => gamma.id],
    ['already in this company', () => alpha.id],
  ])('an account %s: 409 error_conflict, the same words either way, nothing written', async (_label, companyOf) => {
    const existing = await createAccount(t, [companyOf()], ['*']);
    const before = await counts();
    const eventsBefore = (await auditRows(t, alpha.id)).length;

    const res = await authed(t, adminJwt).post('/v1/users', {
      email: existing.email.toUpperCase(),
      password: 'a-new-password-for-nobody',
      name: 'Someone Else',
      permissions: ['products:read'],
    });

    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: ['error_conflict'], message: ACCOUNT_EXISTS });
    expect(ACCOUNT_EXISTS).toMatch(/invite/);
    expect(await counts()).toEqual(before);
    expect((await auditRows(t, alpha.id)).length).toBe(eventsBefore);
  });

  it('a new e-mail is still created (201) in the current company', async () => {
    const res = await authed(t, adminJwt).post('/v1/users', {
      email: `new-${process.pid}@fresh.example`,
      password: 'a-new-password-for-nobody',
      name: 'New Person',
      permissions: ['products:read'],
    });
    expect(res.status).toBe(201);
  });
});
