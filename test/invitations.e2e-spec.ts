import { totpCodeAt } from '../src/identity/auth/mfa/totp';
import { auditRows } from './support/audit-rows';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const PASSWORD = 'Invited-Walrus-3391';

/** POST/GET/DELETE /v1/users/invitations and POST /v1/users/invitations/accept. */
describe('invitations', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;
  let seq = 0;

  const invite = (jwt: string, email: string, permissions: string[] = ['products:read']) =>
    authed(t, jwt).post('/v1/users/invitations', { email, permissions });
  const accept = (body: object) => t.http().post('/v1/users/invitations/accept').send(body);
  const newEmail = () => `invitee-${++seq}-${process.pid}@invite.example`;
  const members = async (jwt: string) =>
    (await authed(t, jwt).get('/v1/users?per_page=100').expect(200)).body.data as Array<{
      id: number;
      email: string;
      permissions: string[];
    }>;

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await createAccount(t, [alpha.id], ['*']);
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  it('creates an invitation whose code is shown once (no-store) and never listed', async () => {
    const email = newEmail();
    const res = await invite(ownerJwt, email.toUpperCase(), ['products:read', 'orders:read']).expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.any(String),
      email,
      permissions: ['orders:read', 'products:read'],
      code: expect.any(String),
      expires_at: '2026-11-28T03:00:00.000Z',
    });
    const listed = (await authed(t, ownerJwt).get('/v1/users/invitations').expect(200)).body;
    expect(listed.data).toContainEqual({
      id: res.body.id,
      email,
      permissions: ['orders:read', 'products:read'],
      created_at: '2026-11-21T03:00:00.000Z',
      expires_at: '2026-11-28T03:00:00.000Z',
    });
    expect(listed).toMatchObject({ page: 1, per_page: 20 });
    expect(JSON.stringify(listed)).not.toContain(res.body.code);
    expect(t.logs.lines.join('\n')).not.toContain(res.body.code);
    expect(await auditRows(t, alpha.id, 'invitation.created')).toContainEqual(
      expect.objectContaining({ subject_id: res.body.id, subject_email: email }),
    );
  });

  it('a new e-mail: accepting creates the account with that password, adds the membership, answers a login', async () => {
    const email = newEmail();
    const { code } = (await invite(ownerJwt, email).expect(201)).body;
    const res = await accept({ code, email, password: PASSWORD, name: 'Nina New' }).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      jwt: expect.any(String),
      refresh_token: expect.any(String),
      company: { id: alpha.id, name: 'Alpha' },
      employee: { email, name: 'Nina New' },
    });
    expect((await authed(t, res.body.jwt).get('/v1/users/me').expect(200)).body.permissions).toEqual(['products:read']);
    expect((await members(ownerJwt)).map((m) => m.email)).toContain(email);
    const types = (await auditRows(t, alpha.id)).filter((e) => e.subject_email === email).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['employee.created', 'invitation.accepted', 'membership.added']));
    // Single use.
    expectError(await accept({ code, email, password: PASSWORD }), 400, 'error_invitation_invalid');
  });

  it('an existing account (of another company) proves itself with its password; the first company is untouched', async () => {
    const existing = await createAccount(t, [beta.id], ['orders:read']);
    const { code } = (await invite(ownerJwt, existing.email).expect(201)).body;
    expectError(
      await accept({ code, email: existing.email, password: 'wrong-password' }),
      401,
      'error_invalid_credentials',
    );
    const res = await accept({ code, email: existing.email, password: existing.password }).expect(200);
    expect(res.body.company.id).toBe(alpha.id);
    const beforeLogin = await t
      .http()
      .post('/v1/users/authenticateinit')
      .send({ email: existing.email, password: existing.password })
      .expect(200);
    expect(beforeLogin.body.companies.map((c: { id: number }) => c.id).sort()).toEqual([alpha.id, beta.id].sort());
    expect(
      (
        await authed(t, (await login(t, existing, beta.id)).jwt)
          .get('/v1/users/me')
          .expect(200)
      ).body.permissions,
    ).toEqual(['orders:read']);
  });

  it('wrong passwords while accepting count toward the login lock', async () => {
    const existing = await createAccount(t, [beta.id], []);
    const { code } = (await invite(ownerJwt, existing.email).expect(201)).body;
    for (let i = 0; i < 10; i++) {
      expectError(
        await accept({ code, email: existing.email, password: 'wrong-password' }),
        401,
        'error_invalid_credentials',
      );
    }
    expectError(
      await accept({ code, email: existing.email, password: existing.password }),
      429,
      'error_rate_limit_exceed',
    );
    clock.advance(15 * 60 * 1000 + 1000);
    await accept({ code, email: existing.email, password: existing.password }).expect(200);
  });

  it('an existing account with TOTP on also needs its code', async () => {
    const existing = await createAccount(t, [beta.id], []);
    const jwt = (await login(t, existing, beta.id)).jwt;
    const { secret } = (
      await authed(t, jwt).post('/v1/users/me/mfa/totp', { current_password: existing.password }).expect(201)
    ).body;
    await authed(t, jwt)
      .post('/v1/users/me/mfa/totp/confirm', { otp: totpCodeAt(secret, clock.nowMs()) })
      .expect(204);
    clock.advance(30_000);
    const { code } = (await invite(ownerJwt, existing.email).expect(201)).body;
    const body = { code, email: existing.email, password: existing.password };
    expectError(await accept(body), 401, 'error_otp_required');
    expectError(await accept({ ...body, otp: totpCodeAt(secret, clock.nowMs() + 120_000) }), 401, 'error_otp_invalid');
    await accept({ ...body, otp: totpCodeAt(secret, clock.nowMs()) }).expect(200);
  });

  it('a code for another e-mail, an unknown code, an expired code and a revoked code are 400 error_invitation_invalid', async () => {
    const email = newEmail();
    const { id, code } = (await invite(ownerJwt, email).expect(201)).body;
    expectError(await accept({ code, email: newEmail(), password: PASSWORD }), 400, 'error_invitation_invalid');
    expectError(await accept({ code: 'made-up', email, password: PASSWORD }), 400, 'error_invitation_invalid');
    await authed(t, ownerJwt).delete(`/v1/users/invitations/${id}`).expect(204);
    expectError(await accept({ code, email, password: PASSWORD }), 400, 'error_invitation_invalid');
    expect(
      (await authed(t, ownerJwt).get('/v1/users/invitations?per_page=100').expect(200)).body.data,
    ).not.toContainEqual(expect.objectContaining({ id }));
    expect(await auditRows(t, alpha.id, 'invitation.revoked')).toContainEqual(
      expect.objectContaining({ subject_id: id }),
    );

    const later = newEmail();
    const expiring = (await invite(ownerJwt, later).expect(201)).body.code;
    clock.advance(7 * 24 * 60 * 60 * 1000 + 1);
    expectError(await accept({ code: expiring, email: later, password: PASSWORD }), 400, 'error_invitation_invalid');
    expect((await members(ownerJwt)).map((m) => m.email)).not.toEqual(expect.arrayContaining([email]));
  });

  it('a weak password for a new account is 400 naming password, and the code still works', async () => {
    const email = newEmail();
    const { code } = (await invite(ownerJwt, email).expect(201)).body;
    expectInvalid(await accept({ code, email, password: 'password1' }), 'password');
    expectInvalid(await accept({ code, email, password: email }), 'password');
    await accept({ code, email, password: PASSWORD }).expect(200);
  });

  it('someone already in the company: 400 error_invitation_invalid, nothing changed', async () => {
    const member = await createAccount(t, [alpha.id], ['products:read']);
    const { code } = (await invite(ownerJwt, member.email, ['orders:read']).expect(201)).body;
    expectError(
      await accept({ code, email: member.email, password: member.password }),
      400,
      'error_invitation_invalid',
    );
    expect((await members(ownerJwt)).find((m) => m.id === member.id)!.permissions).toEqual(['products:read']);
  });

  it('grant only what you hold; revoke needs users:write and what the invitation grants; other companies’ are 404', async () => {
    const manager = await createAccount(t, [alpha.id], ['users:write', 'users:read', 'products:read']);
    const managerJwt = (await login(t, manager, alpha.id)).jwt;
    expectError(await invite(managerJwt, newEmail(), ['orders:read']), 403, 'error_permission_denied');
    const rich = (await invite(ownerJwt, newEmail(), ['orders:write']).expect(201)).body;
    expectError(await authed(t, managerJwt).delete(`/v1/users/invitations/${rich.id}`), 403, 'error_permission_denied');
    const betaOwner = await createAccount(t, [beta.id], ['*']);
    const betaJwt = (await login(t, betaOwner, beta.id)).jwt;
    expectError(await authed(t, betaJwt).delete(`/v1/users/invitations/${rich.id}`), 404, 'error_not_found');
    expectError(await authed(t, ownerJwt).delete('/v1/users/invitations/not-a-uuid'), 404, 'error_not_found');
    const reader = await createAccount(t, [alpha.id], ['users:read']);
    const readerJwt = (await login(t, reader, alpha.id)).jwt;
    expectError(await invite(readerJwt, newEmail()), 403, 'error_permission_denied');
    await authed(t, readerJwt).get('/v1/users/invitations').expect(200);
  });

  it('refuses malformed bodies with error_validation', async () => {
    expectInvalid(await invite(ownerJwt, 'not-an-email'), 'email');
    expectInvalid(await invite(ownerJwt, newEmail(), ['users:delete']), 'permissions');
    expectInvalid(await accept({ email: newEmail(), password: PASSWORD }), 'code');
    expectInvalid(await accept({ code: 'x', email: newEmail(), password: PASSWORD, otp: '12' }), 'otp');
  });
});
