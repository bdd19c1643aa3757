import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md: GET /v1/users/me reports `mfa: {totp, passkeys}`. It is read with the credential (no query of
 * its own), so turning TOTP on or off must reach every cached credential of the account at once, API keys too.
 */
describe('GET /v1/users/me reports the account’s second factors', () => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock('2026-11-25T03:00:00Z');
    t = await startTestApp({ clock });
  });
  afterAll(() => t?.close());

  it('mfa follows TOTP being turned on and off, on the session that changed it and on an API key, at once', async () => {
    const [alpha] = await createCompanies(t, 'Alpha');
    const account = await createAccount(t, [alpha.id], ['*']);
    const jwt = (await login(t, account, alpha.id)).jwt;
    const key = (
      await authed(t, jwt)
        .post('/v1/apikeys', { name: 'mfa', permissions: ['*'] })
        .expect(201)
    ).body.api_key as string;
    const mfaOf = async (credential: string) =>
      (await authed(t, credential).get('/v1/users/me').expect(200)).body.mfa as unknown;

    // Read once each, so both credentials are cached before the change.
    expect(await mfaOf(jwt)).toEqual({ totp: false, passkeys: 0 });
    expect(await mfaOf(key)).toEqual({ totp: false, passkeys: 0 });

    const { secret } = (
      await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: account.password }).expect(201)
    ).body;
    // A set-up waiting for its first code is not a second factor yet.
    expect(await mfaOf(jwt)).toEqual({ totp: false, passkeys: 0 });
    await authed(t, jwt)
      .post('/v1/users/me/mfa/totp/confirm', { otp: totpCodeAt(secret, clock.nowMs()) })
      .expect(204);
    expect(await mfaOf(jwt)).toEqual({ totp: true, passkeys: 0 });
    expect(await mfaOf(key)).toEqual({ totp: true, passkeys: 0 });

    clock.advance(30_000);
    await authed(t, jwt)
      .post('/v1/users/me/mfa/totp/disable', {
        current_password: account.password,
        otp: totpCodeAt(secret, clock.nowMs()),
      })
      .expect(204);
    expect(await mfaOf(jwt)).toEqual({ totp: false, passkeys: 0 });
    expect(await mfaOf(key)).toEqual({ totp: false, passkeys: 0 });
  });
});
