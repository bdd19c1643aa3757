import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../platform/common/errors/api-error';
import { findCompany, listAllCompanies } from '../../accounts/company/company-records';
import { employeeIdOf, listAllEmployees } from '../../accounts/employee/employee-records';
import { normalizeEmail } from '../../accounts/employee/employee.service';
import { listCompanyMembers } from '../../accounts/membership/membership-records';
import { liveSessionsOf } from '../../identity/sessions/session-lists';

/**
 * The CLI's read-only lists (docs/contract.md): whole tables printed as one JSON array. They are for an operator
 * at a shell, so they read straight from the database without paging, each through the table's owner.
 */
export async function listCompanies(app: INestApplicationContext) {
  return listAllCompanies(app.get(DataSource).manager);
}

export async function listEmployees(app: INestApplicationContext, companyId?: number) {
  const { manager } = app.get(DataSource);
  if (companyId === undefined) return listAllEmployees(manager);
  if (!(await findCompany(manager, companyId))) throw ApiError.notFound(`company ${companyId} does not exist`);
  return listCompanyMembers(manager, companyId);
}

/** The employee's live sessions (those not ended), with the company each one currently works in. */
export async function listSessions(app: INestApplicationContext, email: string) {
  const { manager } = app.get(DataSource);
  const employeeId = await employeeIdOf(manager, normalizeEmail(email));
  if (employeeId === null) throw ApiError.notFound(`no employee has the e-mail ${normalizeEmail(email)}`);
  const rows = await liveSessionsOf(manager, employeeId);
  return rows.map((row) => ({
    ...row,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: new Date(row.last_used_at).toISOString(),
  }));
}
