import { ManualClock } from './support/manual-clock';
import { createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * docs/contract.md "Credentials": the value of `__jwtAuthorization` never reaches a log line, wherever a client puts
 * it: the query string (refused with 401 error_jwt_query_not_allowed) or a path parameter (`;name=value`), which
 * is not the query string and matches no route (404).
 */
describe('a credential in the URL', () => {
  let t: TestApp;
  let session: LoginBody;

  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock('2026-11-24T03:00:00Z') });
    const [company] = await createCompanies(t, 'Alpha');
    const account = await createAccount(t, [company.id]);
    session = await login(t, account, company.id);
  });
  afterAll(() => t.close());

  const get = (url: string) =>
    t.app
      .getHttpAdapter()
      .getInstance()
      .inject({ method: 'GET', url, headers: { authorization: session.jwt } });

  /** The request line logged for the one request whose answer carried this id. */
  const requestLogOf = (requestId: string) =>
    t.logs.records.find((record) => record.msg === 'request' && record.reqId === requestId);

  it.each([
    ['the query', '/v1/users/me?__jwtAuthorization=', 401, 'error_jwt_query_not_allowed'],
    ['the query, name percent-encoded', '/v1/users/me?%5F%5FjwtAuthorization=', 401, 'error_jwt_query_not_allowed'],
    // The path is DELETE /v1/users/{id}'s (its id "me;…"), so a GET on it is the wrong method.
    ['a path parameter', '/v1/users/me;__jwtAuthorization=', 405, 'error_method_not_allowed'],
    ['a path parameter, name percent-encoded', '/v1/users/me;%5f%5FjwtAuthorization=', 405, 'error_method_not_allowed'],
    ['a path parameter mid-path', '/v1;__jwtAuthorization={}/users/me', 404, 'error_not_found'],
  ])('in %s (%s…): answered %i %s, and logged as [REDACTED]', async (_where, template, status, code) => {
    const url = template.includes('{}') ? template.replace('{}', session.jwt) : template + session.jwt;
    const res = await get(url);
    expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: [code] });

    const logged = requestLogOf(String(res.headers['x-request-id']));
    expect(logged).toBeDefined();
    expect(logged?.url).toContain('=%5BREDACTED%5D');
    expect(t.logs.text).not.toContain(session.jwt);
    // Nor any piece of it: the signature alone would do to recognise the token.
    expect(t.logs.text).not.toContain(session.jwt.split('.')[2]);
  });
});
