import { CompanyService } from '../../src/accounts/company/company.service';
import { EmployeeService } from '../../src/accounts/employee/employee.service';
import { MembershipService } from '../../src/accounts/membership/membership.service';
import type { Grant } from '../../src/access/permissions/permission';
import type { TestApp } from './test-app';

export interface Account {
  id: number;
  email: string;
  password: string;
}

let sequence = 0;

/** Companies created straight through the services (the HTTP API has no company creation). */
export async function createCompanies(t: TestApp, ...names: string[]) {
  const companies = t.app.get(CompanyService);
  return Promise.all(names.map((name) => companies.create(name)));
}

/** An employee with a membership in each given company, with these permissions. */
export async function createAccount(
  t: TestApp,
  companyIds: number[],
  permissions: Grant[] = ['*'],
  email = `person${++sequence}-${process.pid}@example.test`,
): Promise<Account> {
  const password = `pw-${sequence}-long-enough`;
  const employee = await t.app.get(EmployeeService).create({ email, password });
  for (const companyId of companyIds) await t.app.get(MembershipService).grant(email, companyId, permissions);
  return { id: employee.id, email, password };
}

export interface LoginBody {
  jwt: string;
  refresh_token: string;
  expires_at: string;
  session_id: string;
  company: { id: number; name: string };
  employee: { id: number; email: string; name: string };
}

export async function login(t: TestApp, account: Account, companyId: number): Promise<LoginBody> {
  const res = await t
    .http()
    .post('/v1/users/authenticatefinish')
    .send({ email: account.email, password: account.password, company_id: companyId });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as LoginBody;
}

/** Requests carrying one credential: `authed(t, jwt).post('/v1/products', body)`. */
export function authed(t: TestApp, credential: string) {
  return {
    get: (path: string) => t.http().get(path).set('authorization', credential),
    post: (path: string, body?: object) => t.http().post(path).set('authorization', credential).send(body),
    put: (path: string, body?: object) => t.http().put(path).set('authorization', credential).send(body),
    patch: (path: string, body?: object) => t.http().patch(path).set('authorization', credential).send(body),
    delete: (path: string) => t.http().delete(path).set('authorization', credential),
  };
}
