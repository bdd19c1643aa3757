import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { expectError } from './support/expectations';
import { createAccount, createCompanies, login } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { SoftAuthenticator } from './support/webauthn';

const ORIGIN = 'https://staff.example.test';
const RP_ID = 'staff.example.test';
const env = { WEBAUTHN_RP_ID: RP_ID, WEBAUTHN_ORIGINS: ORIGIN };

/**
 * A passkey ceremony started on one instance finishes on another (challenges and login tickets live in the shared
 * database), and still only once: whichever instance sees a challenge or ticket first spends it.
 */
describe('passkeys across two instances', () => {
  let database: ProvisionedDatabase;
  let a: TestApp;
  let b: TestApp;
  let company: { id: number };
  let key: SoftAuthenticator;

  beforeAll(async () => {
    database = await provisionDatabase();
    a = await startTestApp({ database, env });
    b = await startTestApp({ database, env });
    [company] = await createCompanies(a, 'Alpha');
    const account = await createAccount(a, [company.id], []);
    const { jwt } = await login(a, account, company.id);
    key = new SoftAuthenticator('ES256', { origin: ORIGIN, rpId: RP_ID });
    // Registration: options on A, the response on B.
    const options = (await a.http().post('/v1/users/me/passkeys/options').set('authorization', jwt).expect(200)).body;
    await b
      .http()
      .post('/v1/users/me/passkeys')
      .set('authorization', jwt)
      .send({ name: 'Laptop', response: key.register(options) })
      .expect(201);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a challenge from A is finished on B, then refused on A; the ticket from B opens the session on A, once', async () => {
    const { challenge_id, options } = (await a.http().post('/v1/users/passkeys/options').expect(200)).body;
    const response = key.assert(options.challenge);
    const step1 = await b.http().post('/v1/users/passkeys/authenticate').send({ challenge_id, response }).expect(200);
    expectError(
      await a.http().post('/v1/users/passkeys/authenticate').send({ challenge_id, response }),
      400,
      'error_login_ticket_invalid',
    );
    const finish = (app: TestApp) =>
      app
        .http()
        .post('/v1/users/authenticatefinish')
        .send({ login_ticket: step1.body.login_ticket, company_id: company.id });
    const session = await finish(a).expect(200);
    expect(session.body.company.id).toBe(company.id);
    expectError(await finish(b), 400, 'error_login_ticket_invalid');
  });

  it('the same challenge sent to both at once is admitted by exactly one', async () => {
    const { challenge_id, options } = (await a.http().post('/v1/users/passkeys/options').expect(200)).body;
    const response = key.assert(options.challenge);
    const send = (app: TestApp) => app.http().post('/v1/users/passkeys/authenticate').send({ challenge_id, response });
    const statuses = (await Promise.all([send(a), send(b)])).map((res) => res.status).sort();
    expect(statuses).toEqual([200, 400]);
  });
});
