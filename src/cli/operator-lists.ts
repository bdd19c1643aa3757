import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { normalizeEmail } from '../employee/employee.service';

/**
 * The CLI's read-only lists (docs/contract.md): whole tables printed as one JSON array. They are for an operator
 * at a shell, so they read straight from the database without paging.
 */
export async function listCompanies(app: INestApplicationContext) {
  return app.get(DataSource).query<Array<{ id: number; name: string }>>('SELECT id, name FROM company ORDER BY id');
}

export async function listEmployees(app: INestApplicationContext, companyId?: number) {
  const dataSource = app.get(DataSource);
  if (companyId === undefined) {
    return dataSource.query(`SELECT id, email, name, totp_enabled_at IS NOT NULL AS mfa FROM employee ORDER BY id`);
  }
  const [company] = await dataSource.query('SELECT id FROM company WHERE id = $1', [companyId]);
  if (!company) throw ApiError.notFound(`company ${companyId} does not exist`);
  return dataSource.query(
    `SELECT employee.id, employee.email, employee.name, membership.permissions,
            employee.totp_enabled_at IS NOT NULL AS mfa
       FROM membership JOIN employee ON employee.id = membership.employee_id
      WHERE membership.company_id = $1 ORDER BY employee.id`,
    [companyId],
  );
}

/** The employee's live sessions (those not ended), with the company each one currently works in. */
export async function listSessions(app: INestApplicationContext, email: string) {
  const dataSource = app.get(DataSource);
  const [employee] = await dataSource.query<Array<{ id: number }>>('SELECT id FROM employee WHERE lower(email) = $1', [
    normalizeEmail(email),
  ]);
  if (!employee) throw ApiError.notFound(`no employee has the e-mail ${normalizeEmail(email)}`);
  const rows = await dataSource.query<
    Array<{ id: string; company_id: number; created_at: Date; last_used_at: Date; ip: string; user_agent: string }>
  >(
    `SELECT id, company_id, created_at, last_used_at, ip, user_agent FROM login_session
      WHERE employee_id = $1 AND ended_at IS NULL ORDER BY created_at, id`,
    [employee.id],
  );
  return rows.map((row) => ({
    ...row,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: new Date(row.last_used_at).toISOString(),
  }));
}
