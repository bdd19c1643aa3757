import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { expectError, expectInvalid } from './support/expectations';
import { routeRules } from './support/route-rules';
import { startTestApp, type TestApp } from './support/test-app';

/** GET /v1/users and GET /v1/apikeys, paginated and filtered; undeclared query parameters on every route. */
describe('staff lists', () => {
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;
  const people: Account[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    owner = await createAccount(t, [alpha.id, beta.id], ['*'], `owner-${process.pid}@lists.example`);
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
    for (let i = 0; i < 4; i++) {
      people.push(await createAccount(t, [alpha.id], ['products:read'], `zeta-${i}-${process.pid}@lists.example`));
    }
    await createAccount(t, [beta.id], ['products:read'], `zeta-beta-${process.pid}@lists.example`);
  });
  afterAll(() => t?.close());

  describe('GET /v1/users', () => {
    it('pages the current company’s employees with permissions and mfa', async () => {
      const page1 = (await authed(t, ownerJwt).get('/v1/users?page=1&per_page=2').expect(200)).body;
      expect(page1).toEqual({ data: expect.any(Array), page: 1, per_page: 2, total: 5 });
      expect(page1.data).toHaveLength(2);
      expect(page1.data[0]).toEqual({
        id: owner.id,
        email: owner.email,
        name: expect.any(String),
        permissions: ['*'],
        roles: [],
        mfa: false,
      });
      const page3 = (await authed(t, ownerJwt).get('/v1/users?page=3&per_page=2').expect(200)).body;
      expect(page3.data.map((e: { id: number }) => e.id)).toEqual([people[3].id]);
    });

    it('q searches e-mail or name, ignoring case, and never across companies', async () => {
      const res = (await authed(t, ownerJwt).get('/v1/users?q=ZETA-').expect(200)).body;
      expect(res.total).toBe(4);
      expect(res.data.map((e: { email: string }) => e.email)).not.toContain(`zeta-beta-${process.pid}@lists.example`);
      // LIKE wildcards are literal.
      expect((await authed(t, ownerJwt).get('/v1/users?q=%25').expect(200)).body.total).toBe(0);
    });

    it('mfa=false / mfa=true filter on the second factor', async () => {
      expect((await authed(t, ownerJwt).get('/v1/users?mfa=false').expect(200)).body.total).toBe(5);
      expect((await authed(t, ownerJwt).get('/v1/users?mfa=true').expect(200)).body.total).toBe(0);
    });

    it.each([
      ['page=0', 'page'],
      ['per_page=101', 'per_page'],
      ['mfa=yes', 'mfa'],
      ['q=', 'q'],
      ['sort=email', 'sort'],
    ])('refuses ?%s', async (query, field) => {
      expectInvalid(await authed(t, ownerJwt).get(`/v1/users?${query}`), field);
    });
  });

  describe('GET /v1/apikeys', () => {
    let managerKey: { id: string; api_key: string };
    let manager: Account;

    beforeAll(async () => {
      manager = await createAccount(t, [alpha.id], ['apikeys:manage', 'products:read']);
      const managerJwt = (await login(t, manager, alpha.id)).jwt;
      managerKey = (
        await authed(t, managerJwt)
          .post('/v1/apikeys', { name: 'sync', permissions: ['products:read'] })
          .expect(201)
      ).body;
      await authed(t, ownerJwt)
        .post('/v1/apikeys', { name: 'owner key', permissions: ['*'] })
        .expect(201);
    });

    it('pages the keys with prefix and owner, never the secret', async () => {
      const res = (await authed(t, ownerJwt).get('/v1/apikeys?per_page=1').expect(200)).body;
      expect(res).toEqual({ data: [expect.any(Object)], page: 1, per_page: 1, total: 2 });
      const all = (await authed(t, ownerJwt).get('/v1/apikeys').expect(200)).body.data;
      expect(all.find((key: { id: string }) => key.id === managerKey.id)).toEqual({
        id: managerKey.id,
        name: 'sync',
        prefix: managerKey.api_key.split(':')[0],
        owner: { id: manager.id, email: manager.email },
        permissions: ['products:read'],
        created_at: expect.any(String),
        last_used_at: null,
      });
      expect(JSON.stringify(all)).not.toContain(managerKey.api_key.split(':')[1]);
    });

    it('filters by prefix and by owner', async () => {
      const prefix = managerKey.api_key.split(':')[0];
      const byPrefix = (await authed(t, ownerJwt).get(`/v1/apikeys?prefix=${prefix}`).expect(200)).body;
      expect(byPrefix.data.map((k: { id: string }) => k.id)).toEqual([managerKey.id]);
      const byOwner = (await authed(t, ownerJwt).get(`/v1/apikeys?owner=${owner.id}`).expect(200)).body;
      expect(byOwner.data.map((k: { name: string }) => k.name)).toEqual(['owner key']);
      expectInvalid(await authed(t, ownerJwt).get('/v1/apikeys?owner=abc'), 'owner');
    });

    it('revoking a key whose owner holds more than the caller is 403, and changes nothing', async () => {
      const ownerKeyId = (await authed(t, ownerJwt).get(`/v1/apikeys?owner=${owner.id}`).expect(200)).body.data[0].id;
      const managerJwt = (await login(t, manager, alpha.id)).jwt;
      expectError(await authed(t, managerJwt).delete(`/v1/apikeys/${ownerKeyId}`), 403, 'error_permission_denied');
      expect((await authed(t, ownerJwt).get('/v1/apikeys').expect(200)).body.total).toBe(2);
      // Its own key, and the owner revoking anyone's, still work.
      await authed(t, managerJwt).delete(`/v1/apikeys/${managerKey.id}`).expect(204);
      await authed(t, ownerJwt).delete(`/v1/apikeys/${ownerKeyId}`).expect(204);
    });
  });

  describe('undeclared query parameters', () => {
    it('every route answers 400 error_validation naming the parameter', async () => {
      const refused: string[] = [];
      // SCIM lets clients send parameters a server ignores (attributes, excludedAttributes): /scim routes declare
      // every parameter, and scim-errors.e2e-spec.ts checks what they refuse.
      // The SSO callback too: identity providers add parameters of their own to the redirect (session_state, iss,
      // scope, authuser, hd...), and test/sso.e2e-spec.ts checks what it refuses.
      const routes = routeRules().filter(
        (rule) => !rule.route.includes(' /scim/') && rule.route !== 'GET /v1/sso/callback',
      );
      // Routes for other services' API keys (token introspection) refuse a login token before reading the query.
      const ownerKey = (
        await authed(t, ownerJwt)
          .post('/v1/apikeys')
          .send({ name: 'query check', permissions: ['*'] })
          .expect(201)
      ).body.api_key as string;
      for (const rule of routes) {
        const [method, path] = rule.route.split(' ');
        const url = `${path.replace(/:\w+/g, '1')}?not_declared=1`;
        const request = t.http()[method.toLowerCase() as 'get'](url);
        if (!rule.auth?.public) request.set('authorization', rule.auth?.apiKeyOnly ? ownerKey : ownerJwt);
        // The upload route refuses any other media type before routing.
        if (rule.route === 'POST /v1/files') request.attach('file', Buffer.from('x'), 'x.txt');
        const res = await request;
        if (res.status === 400 && res.body.details?.[0]?.field === 'not_declared') refused.push(rule.route);
        else refused.push(`${rule.route} answered ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`);
      }
      expect(refused).toEqual(routes.map((rule) => rule.route));
    });

    it('declared parameters still pass', async () => {
      await authed(t, ownerJwt).get('/v1/products?page=1&per_page=5&name=tea').expect(200);
    });
  });
});
