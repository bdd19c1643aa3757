import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/** docs/contract.md: every answer carrying a token, refresh token or API key secret has Cache-Control: no-store. */
describe('Cache-Control: no-store on answers that carry a secret', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('login, refresh, company switch and API key creation; not on answers without a secret', async () => {
    const [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    const account = await createAccount(t, [alpha.id, beta.id], ['*']);
    const finish = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: account.email, password: account.password, company_id: alpha.id })
      .expect(200);
    expect(finish.headers['cache-control']).toBe('no-store');
    const refreshed = await t
      .http()
      .post('/v1/users/refreshtoken')
      .send({ refresh_token: finish.body.refresh_token })
      .expect(200);
    expect(refreshed.headers['cache-control']).toBe('no-store');
    const switched = await authed(t, refreshed.body.jwt)
      .post('/v1/users/changeworkingcompany', { company_id: beta.id })
      .expect(200);
    expect(switched.headers['cache-control']).toBe('no-store');
    const key = await authed(t, switched.body.jwt)
      .post('/v1/apikeys', { name: 'k', permissions: ['*'] })
      .expect(201);
    expect(key.headers['cache-control']).toBe('no-store');

    const me = await authed(t, (await login(t, account, alpha.id)).jwt)
      .get('/v1/users/me')
      .expect(200);
    expect(me.headers['cache-control']).toBeUndefined();
  });
});
