import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { ErrorCode } from '../src/platform/common/errors/error-codes';
import { controllersOf, routeCatalogue } from '../src/platform/common/http/route-catalogue';
import { auditRows } from './support/audit-rows';
import { expectError } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const SECOND_FACTOR_FIELDS = ['otp', 'recovery_code'];
const RATE_LIMITED = ErrorCode.RateLimitExceed;

/**
 * docs/contract.md: a wrong one-time code counts as a failed login. Every route that takes a second factor is
 * found from the route metadata (its body declares `otp` or `recovery_code`), so a new one cannot skip the lock:
 * it fails here until it has a driver below. Each driver sends 10 wrong codes, then the right one, which the lock
 * must refuse.
 */
describe('every second-factor check counts toward the login lock', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  /** The company the accounts are invited into (they are members of Alpha only). */
  let beta: { id: number };
  let betaOwnerJwt: string;

  const wrongCode = (secret: string) => totpCodeAt(secret, clock.nowMs() + 10 * 30_000);
  const rightCode = (secret: string) => totpCodeAt(secret, clock.nowMs());

  /** An account whose TOTP set-up is started (`confirm: false`) or on. */
  async function withTotp(confirm: boolean): Promise<{ account: Account; jwt: string; secret: string }> {
    const account = await createAccount(t, [alpha.id], ['users:read']);
    const jwt = (await login(t, account, alpha.id)).jwt;
    const { secret } = (
      await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: account.password }).expect(201)
    ).body;
    if (confirm) {
      await authed(t, jwt)
        .post('/v1/users/me/mfa/totp/confirm', { otp: rightCode(secret) })
        .expect(204);
      clock.advance(30_000);
    }
    // Turning TOTP on ends the account's other sessions but keeps this one.
    return { account, jwt, secret };
  }

  type Send = (code: string) => Promise<{ status: number; body: unknown }>;
  const drivers: Record<string, (setUp: Awaited<ReturnType<typeof withTotp>>) => Promise<Send>> = {
    'POST /v1/users/authenticatefinish':
      async ({ account }) =>
      (otp) =>
        t
          .http()
          .post('/v1/users/authenticatefinish')
          .send({ ...credentials(account), company_id: alpha.id, otp }),
    'POST /v1/users/invitations/accept': async ({ account }) => {
      const { code } = (
        await authed(t, betaOwnerJwt)
          .post('/v1/users/invitations', { email: account.email, permissions: [] })
          .expect(201)
      ).body;
      return (otp) =>
        t
          .http()
          .post('/v1/users/invitations/accept')
          .send({ code, ...credentials(account), otp });
    },
    'POST /v1/users/me/mfa/totp/disable':
      async ({ account, jwt }) =>
      (otp) =>
        authed(t, jwt).post('/v1/users/me/mfa/totp/disable', { current_password: account.password, otp }),
    'POST /v1/users/me/reauthenticate':
      async ({ account, jwt }) =>
      (otp) =>
        authed(t, jwt).post('/v1/users/me/reauthenticate', { current_password: account.password, otp }),
  };
  // Confirming a set-up is the one check whose account does not have TOTP on yet.
  const pendingDrivers: typeof drivers = {
    'POST /v1/users/me/mfa/totp/confirm':
      async ({ jwt }) =>
      (otp) =>
        authed(t, jwt).post('/v1/users/me/mfa/totp/confirm', { otp }),
  };
  const credentials = (account: Account) => ({ email: account.email, password: account.password });

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T03:00:00Z');
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    const owner = await createAccount(t, [beta.id], ['*']);
    betaOwnerJwt = (await login(t, owner, beta.id)).jwt;
  });
  afterAll(() => t?.close());

  it('the routes that take a second factor are exactly the ones driven here', () => {
    const storage = getMetadataStorage();
    const taking = routeCatalogue(controllersOf(t.app.get(ModulesContainer)))
      .filter((route) => route.body !== undefined)
      .filter((route) =>
        storage
          .getTargetValidationMetadatas(route.body!, '', true, false)
          .some((rule) => SECOND_FACTOR_FIELDS.includes(rule.propertyName)),
      )
      .flatMap((route) => route.paths.map((path) => `${route.method} ${path}`));
    expect(taking.sort()).toEqual(Object.keys({ ...drivers, ...pendingDrivers }).sort());
  });

  it.each([
    ...Object.keys(drivers).map((route) => [route, true]),
    ...Object.keys(pendingDrivers).map((r) => [r, false]),
  ])(
    '%s: 10 wrong codes lock the e-mail, record login.failed, and the right code is then refused',
    async (route, enrolled) => {
      const setUp = await withTotp(enrolled as boolean);
      const send = await { ...drivers, ...pendingDrivers }[route as string](setUp);
      const failedBefore = (await auditRows(t, alpha.id, 'login.failed')).length;
      for (let attempt = 0; attempt < 10; attempt++) {
        expectError(await send(wrongCode(setUp.secret)), 401, 'error_otp_invalid');
      }
      const failures = (await auditRows(t, alpha.id, 'login.failed')).slice(failedBefore);
      expect(failures.map((row) => row.details.reason)).toEqual(Array(10).fill('otp_invalid'));
      expect(failures.every((row) => row.subject_id === String(setUp.account.id))).toBe(true);

      expectError(await send(rightCode(setUp.secret)), 429, RATE_LIMITED);
      // The lock is the account's: a login with both right factors waits too, until the window passes.
      const loginBody = { ...credentials(setUp.account), company_id: alpha.id, otp: rightCode(setUp.secret) };
      expectError(await t.http().post('/v1/users/authenticatefinish').send(loginBody), 429, RATE_LIMITED);
      clock.advance(15 * 60_000 + 1_000);
      if (route === 'POST /v1/users/me/mfa/totp/disable') {
        // A step-up route: the login's proof is as old as the lock's window now, so the person proves it again.
        await authed(t, setUp.jwt)
          .post('/v1/users/me/reauthenticate', {
            current_password: setUp.account.password,
            otp: rightCode(setUp.secret),
          })
          .expect(204);
        clock.advance(30_000);
      }
      expect((await send(rightCode(setUp.secret))).status).toBeLessThan(300);
    },
  );
});
