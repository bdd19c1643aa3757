import { AuditEventsService } from '../../audit/recorder/audit-events.service';
import { AuditRetention } from '../../audit/recorder/audit-retention.service';
import { isUuid } from '../../platform/common/http/uuid';
import { SessionService } from '../../identity/sessions/session.service';
import { CompanyService } from '../../accounts/company/company.service';
import { EmployeeService } from '../../accounts/employee/employee.service';
import { parseGrants } from '../../access/permissions/permission';
import { OperatorActionsService } from './operator-actions.service';
import { listCompanies, listEmployees, listSessions } from './operator-lists';
import { type CliCommand, positiveInteger, timeFlag, UsageError } from './cli-command';
import { POLICY_COMMANDS } from './policy-commands';
import { RATE_LIMIT_COMMANDS } from './rate-limit-commands';
import { QUOTA_COMMANDS } from './quota-commands';

export { type CliCommand, type FlagSpec, UsageError } from './cli-command';

/** `--password -`: the value is read from standard input (the only value accepted on the command line). */
export const FROM_STDIN = '-';

/** One line, waiting when standard output is full, so an export of millions of events stays in small memory. */
export async function writeLine(line: string): Promise<void> {
  if (!process.stdout.write(`${line}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}

function grantsFlag(value: string) {
  try {
    return parseGrants(value);
  } catch (error) {
    throw new UsageError(`--permissions: ${(error as Error).message}`);
  }
}

/** The operator commands of docs/contract.md; each prints one JSON object. */
export const CLI_COMMANDS: Record<string, CliCommand> = {
  'company:create': {
    summary: 'create a company',
    flags: { required: ['name'] },
    check(flags) {
      const name = flags.name.trim();
      if (name === '' || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
    },
    async run(app, flags) {
      const name = flags.name.trim();
      const company = await app.get(CompanyService).create(name);
      return { id: company.id, name: company.name };
    },
  },
  'employee:create': {
    summary: 'create an employee; the password is read from standard input',
    flags: { required: ['email'], optional: ['name'] },
    stdin: { flag: 'password' },
    async run(app, flags) {
      const employee = await app
        .get(EmployeeService)
        .create({ email: flags.email, password: flags.password, name: flags.name });
      return { id: employee.id, email: employee.email };
    },
  },
  'membership:add': {
    summary: 'put an employee in a company, or replace the permissions (LIST: comma-separated names, or *)',
    flags: { required: ['email', 'company', 'permissions'] },
    check(flags) {
      positiveInteger('company', flags.company);
      grantsFlag(flags.permissions);
    },
    async run(app, flags) {
      const companyId = positiveInteger('company', flags.company);
      const permissions = grantsFlag(flags.permissions);
      return app.get(OperatorActionsService).grant(flags.email, companyId, permissions);
    },
  },
  'membership:remove': {
    summary: 'take an employee out of a company; their sessions and API keys there are blacklisted',
    flags: { required: ['email', 'company'] },
    check(flags) {
      positiveInteger('company', flags.company);
    },
    async run(app, flags) {
      const companyId = positiveInteger('company', flags.company);
      const removed = await app.get(OperatorActionsService).removeMembership(flags.email, companyId);
      return { ...removed, removed: true };
    },
  },
  'employee:set-password': {
    summary: "set a new password, read from standard input; ends the employee's sessions",
    flags: { required: ['email'], optional: [] },
    stdin: { flag: 'password' },
    async run(app, flags) {
      return app.get(OperatorActionsService).setPassword(flags.email, flags.password);
    },
  },
  'audit:export': {
    summary: "print a company's security events as JSON lines, oldest first (--since inclusive, --until exclusive)",
    flags: { required: ['company'], optional: ['since', 'until'] },
    check(flags) {
      positiveInteger('company', flags.company);
      timeFlag('since', flags.since);
      timeFlag('until', flags.until);
    },
    async run(app, flags, out = writeLine) {
      const filter = { since: timeFlag('since', flags.since), until: timeFlag('until', flags.until) };
      for await (const event of app.get(AuditEventsService).export(positiveInteger('company', flags.company), filter)) {
        await out(JSON.stringify(event));
      }
      return undefined;
    },
  },
  'audit:purge': {
    summary: 'delete the security events older than AUDIT_RETENTION_DAYS now (the service does it hourly)',
    flags: { required: [] },
    async run(app) {
      return { deleted: await app.get(AuditRetention).runOnce() };
    },
  },
  'session:revoke': {
    summary: 'end a login session; its tokens are blacklisted',
    flags: { required: ['id'] },
    check(flags) {
      if (!isUuid(flags.id.trim().toLowerCase())) {
        throw new UsageError(`--id must be a session id (a UUID), got "${flags.id}"`);
      }
    },
    async run(app, flags) {
      const id = flags.id.trim().toLowerCase();
      if (!(await app.get(SessionService).revokeById(id))) throw new UsageError(`no session has the id ${id}`);
      return { id, revoked: true };
    },
  },
  'company:list': {
    summary: 'list the companies (a JSON array)',
    flags: { required: [] },
    run: (app) => listCompanies(app),
  },
  'employee:list': {
    summary: "list the employees, or with --company a company's members and their permissions (a JSON array)",
    flags: { required: [], optional: ['company'] },
    check(flags) {
      if (flags.company !== undefined) positiveInteger('company', flags.company);
    },
    run: (app, flags) =>
      listEmployees(app, flags.company === undefined ? undefined : positiveInteger('company', flags.company)),
  },
  'session:list': {
    summary: "list an employee's live login sessions (a JSON array)",
    flags: { required: ['email'] },
    run: (app, flags) => listSessions(app, flags.email),
  },
  ...RATE_LIMIT_COMMANDS,
  ...QUOTA_COMMANDS,
  ...POLICY_COMMANDS,
};
