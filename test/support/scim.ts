import { DataSource } from 'typeorm';
import { setPasswordHash } from '../../src/accounts/employee/employee-records';
import { PasswordHasher } from '../../src/accounts/employee/password-hasher';
import type { TestApp } from './test-app';

export const SCIM_JSON = 'application/scim+json';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** Requests as an identity provider sends them: `Authorization: Bearer <token>`, bodies in application/scim+json. */
export function scimClient(t: TestApp, token: string) {
  const withBody = (request: ReturnType<ReturnType<TestApp['http']>['post']>, body: unknown) =>
    request
      .set('authorization', `Bearer ${token}`)
      .set('accept', SCIM_JSON)
      .set('content-type', SCIM_JSON)
      .send(JSON.stringify(body));
  return {
    get: (path: string) =>
      t.http().get(`/scim/v2${path}`).set('authorization', `Bearer ${token}`).set('accept', SCIM_JSON),
    post: (path: string, body: unknown) => withBody(t.http().post(`/scim/v2${path}`), body),
    put: (path: string, body: unknown) => withBody(t.http().put(`/scim/v2${path}`), body),
    patch: (path: string, body: unknown) => withBody(t.http().patch(`/scim/v2${path}`), body),
    delete: (path: string) => t.http().delete(`/scim/v2${path}`).set('authorization', `Bearer ${token}`),
  };
}

/** A SCIM token of the owner's company (POST /v1/scim/tokens). */
export async function issueScimToken(
  t: TestApp,
  ownerJwt: string,
  name = 'idp',
): Promise<{ id: string; token: string }> {
  const res = await t.http().post('/v1/scim/tokens').set('authorization', ownerJwt).send({ name });
  if (res.status !== 201) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; token: string };
}

/** A provisioned account has no password anyone knows; the person sets one (here: straight in the table). */
export async function setPassword(t: TestApp, employeeId: number, password: string): Promise<void> {
  const hash = await t.app.get(PasswordHasher).hash(password);
  await setPasswordHash(t.app.get(DataSource).manager, employeeId, hash, new Date());
}

/** SCIM's error body (RFC 7644 3.12) with this status and, when given, scimType. */
export function expectScimError(
  res: { status: number; body: unknown; headers: Record<string, string> },
  status: number,
  scimType?: string,
): void {
  expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: {
      schemas: [ERROR_SCHEMA],
      status: String(status),
      ...(scimType ? { scimType } : {}),
      detail: expect.any(String),
    },
  });
}
