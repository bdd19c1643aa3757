import { ModulesContainer } from '@nestjs/core';
import { controllersOf, routeCatalogue } from '../src/platform/common/http/route-catalogue';
import { expectInvalid } from './support/expectations';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { issueScimToken } from './support/scim';
import { startTestApp, type TestApp } from './support/test-app';

const SHAPE = expect.objectContaining({
  error: [expect.stringMatching(/^error_[a-z_]+$/)],
  message: expect.any(String),
});
/** /scim answers in SCIM's error schema (RFC 7644 3.12). */
const SCIM_SHAPE = expect.objectContaining({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
  status: expect.stringMatching(/^4\d\d$/),
  detail: expect.any(String),
});
const forgedCursor = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/**
 * Values shaped like the ids, numbers, cursors and dates the routes take, but outside what their columns hold:
 * integers past `integer` and `bigint`, UUID look-alikes, cursors naming impossible rows, dates past
 * PostgreSQL's range.
 */
const HOSTILE_VALUES = [
  '2147483648',
  '9223372036854775808',
  '99999999999999999999',
  '-9223372036854775809',
  '1e309',
  'NaN',
  '0x7fffffff',
  '00000000-0000-0000-0000-00000000000g',
  'ffffffff-ffff-ffff-ffff-fffffffffffff',
  '{00000000-0000-0000-0000-000000000000}',
  '00000000000000000000000000000000',
  forgedCursor('1:9999999999999999999'),
  forgedCursor('1:9223372036854775808'),
  forgedCursor('99999999999999999:1'),
  '99999-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '0000-00-00T00:00:00Z',
];

/**
 * docs/contract.md: ids, cursors and numbers outside their column's range are refused like any malformed value,
 * and no input a client can send yields a 5xx. Every route that takes a path parameter or a declared query
 * parameter is found from the route metadata, so a new one is covered without being listed.
 */
describe('out-of-range ids, numbers, cursors and UUID look-alikes on every route that takes them', () => {
  let t: TestApp;
  let jwt: string;
  let scimToken: string;

  beforeAll(async () => {
    t = await startTestApp();
    const [company] = await createCompanies(t, 'Range Co');
    jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    scimToken = (await issueScimToken(t, jwt)).token;
  });
  afterAll(async () => {
    // Refused input is never logged as an error with a stack.
    expect(t.logs.lines.filter((line) => line.includes('"stack"'))).toEqual([]);
    await t?.close();
  });

  const send = (method: string, path: string) => {
    // /scim/v2 takes its own bearer token (SCIM clients send `Bearer`).
    const as = authed(t, path.startsWith('/scim/') ? `Bearer ${scimToken}` : jwt);
    if (method === 'GET') return as.get(path);
    if (method === 'DELETE') return as.delete(path);
    return as[method.toLowerCase() as 'post' | 'put' | 'patch'](path, {});
  };

  it('the scan’s cursors answer 400 error_validation naming cursor', async () => {
    for (const cursor of ['MTo5OTk5OTk5OTk5OTk5OTk5OTk5', forgedCursor('1:9223372036854775808')]) {
      expectInvalid(await authed(t, jwt).get(`/v1/auditevents?cursor=${cursor}`), 'cursor');
    }
  });

  it('no route answers a 5xx, and every refusal is in the error shape', async () => {
    const routes = routeCatalogue(controllersOf(t.app.get(ModulesContainer))).flatMap((route) =>
      route.paths.map((path) => ({ method: route.method, path, query: route.query })),
    );
    const requests: Array<{ method: string; url: string }> = [];
    for (const route of routes) {
      for (const value of HOSTILE_VALUES) {
        const encoded = encodeURIComponent(value);
        if (route.path.includes(':')) {
          requests.push({ method: route.method, url: route.path.replace(/:[A-Za-z_]+/g, encoded) });
        }
        if (route.method === 'GET' && route.query !== 'any' && !route.path.includes(':')) {
          for (const name of route.query) requests.push({ method: 'GET', url: `${route.path}?${name}=${encoded}` });
        }
      }
    }
    expect(requests.length).toBeGreaterThan(200);
    const failures: string[] = [];
    for (const { method, url } of requests) {
      const res = await send(method, url).timeout(10_000);
      if (res.status >= 500) failures.push(`${method} ${url} → ${res.status} ${JSON.stringify(res.body)}`);
      else if (res.status >= 400 && res.status !== 429) {
        expect(res.body).toEqual(url.startsWith('/scim/') ? SCIM_SHAPE : SHAPE);
      }
    }
    expect(failures).toEqual([]);
  });
});
