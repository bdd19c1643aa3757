import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError } from './support/expectations';
import { issueScimToken, PATCH_OP, scimClient } from './support/scim';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A role changed on one instance reaches every holder's credentials another instance has cached, on their very
 * next request (docs/contract.md: within 1 second): two instances share PostgreSQL, with Redis pub/sub or with
 * PostgreSQL LISTEN/NOTIFY alone.
 */
describe.each([
  ['PostgreSQL + Redis', { REDIS_URL }],
  ['PostgreSQL alone', {}],
])('role change across two instances on %s', (_label, env: Record<string, string>) => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let company: { id: number };
  let ownerJwt: string;

  beforeAll(async () => {
    database = await provisionDatabase();
    a = await startTestApp({ database, env });
    b = await startTestApp({ database, env });
    [company] = await createCompanies(a, 'Alpha');
    ownerJwt = (await login(a, await createAccount(a, [company.id], ['*']), company.id)).jwt;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('taking users:read out of a role on A: B refuses both holders’ cached tokens and API keys next (5 times)', async () => {
    const role = (
      await a
        .http()
        .post('/v1/roles')
        .set('authorization', ownerJwt)
        .send({ name: 'Readers', permissions: ['users:read', 'apikeys:manage'] })
        .expect(201)
    ).body as { id: number };
    const credentials: string[] = [];
    for (let holder = 0; holder < 2; holder++) {
      const account = await createAccount(a, [company.id], []);
      await a
        .http()
        .put(`/v1/users/${account.id}/permissions`)
        .set('authorization', ownerJwt)
        .send({ permissions: [], roles: [role.id] })
        .expect(200);
      const jwt = (await login(a, account, company.id)).jwt;
      const key = await a
        .http()
        .post('/v1/apikeys')
        .set('authorization', jwt)
        .send({ name: 'k', permissions: ['users:read'] })
        .expect(201);
      credentials.push(jwt, key.body.api_key as string);
    }
    const setRole = (permissions: string[]) =>
      a
        .http()
        .put(`/v1/roles/${role.id}`)
        .set('authorization', ownerJwt)
        .send({ name: 'Readers', permissions })
        .expect(200);

    for (let round = 0; round < 5; round++) {
      for (const credential of credentials) {
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
      }
      await setRole(['apikeys:manage']);
      // The answer waited for B's confirmation: B's very next request already runs with the new set.
      for (const credential of credentials)
        expectError(await b.http().get('/v1/users').set('authorization', credential), 403, 'error_permission_denied');
      await setRole(['apikeys:manage', 'users:read']);
      for (const credential of credentials)
        await b.http().get('/v1/users').set('authorization', credential).expect(200);
    }
    expect(a.logs.text).not.toContain('not confirmed');
  });

  it('a SCIM PATCH of a group on A: B runs the added holder with the role at once, and without it after removal', async () => {
    const scim = scimClient(a, (await issueScimToken(a, ownerJwt)).token);
    const group = (await scim.post('/Groups', { displayName: 'Order desk' }).expect(201)).body.id as string;
    await a
      .http()
      .put(`/v1/roles/${group}`)
      .set('authorization', ownerJwt)
      .send({ name: 'Order desk', permissions: ['orders:read'] })
      .expect(200);
    const holder = await createAccount(a, [company.id], []);
    const jwt = (await login(a, holder, company.id)).jwt;
    const members = (op: string, path: string, value?: unknown) =>
      scim.patch(`/Groups/${group}`, { schemas: [PATCH_OP], Operations: [{ op, path, value }] }).expect(200);
    for (let round = 0; round < 3; round++) {
      expectError(await b.http().get('/v1/orders').set('authorization', jwt), 403, 'error_permission_denied');
      await members('Add', 'members', [{ value: String(holder.id) }]);
      await b.http().get('/v1/orders').set('authorization', jwt).expect(200);
      await members('Remove', `members[value eq "${holder.id}"]`);
    }
    expect(a.logs.text).not.toContain('not confirmed');
  });
});
