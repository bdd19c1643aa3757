import type { INestApplicationContext } from '@nestjs/common';
import { CredentialService } from '../auth/credentials/credential.service';
import { SessionService } from '../auth/sessions/session.service';
import { CompanyService } from '../company/company.service';
import { EmployeeService } from '../employee/employee.service';
import { MembershipService } from '../membership/membership.service';
import { parseGrants } from '../membership/permission';

/** Bad input the operator can fix; printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface FlagSpec {
  required: string[];
  optional?: string[];
}

export interface CliCommand {
  flags: FlagSpec;
  /** Checks the flags before the database is opened, so a typo is reported as a typo. */
  check?(flags: Record<string, string>): void;
  run(app: INestApplicationContext, flags: Record<string, string>): Promise<unknown>;
}

function positiveInteger(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${flag} must be a positive whole number, got "${value}"`);
  }
  return Number(value);
}

function grantsFlag(value: string) {
  try {
    return parseGrants(value);
  } catch (error) {
    throw new UsageError(`--permissions: ${(error as Error).message}`);
  }
}

/** The operator commands of contract.md; each prints one JSON object. */
export const CLI_COMMANDS: Record<string, CliCommand> = {
  'company:create': {
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
    flags: { required: ['email', 'password'], optional: ['name'] },
    async run(app, flags) {
      const employee = await app
        .get(EmployeeService)
        .create({ email: flags.email, password: flags.password, name: flags.name });
      return { id: employee.id, email: employee.email };
    },
  },
  'membership:add': {
    flags: { required: ['email', 'company', 'permissions'] },
    check(flags) {
      positiveInteger('company', flags.company);
      grantsFlag(flags.permissions);
    },
    async run(app, flags) {
      const companyId = positiveInteger('company', flags.company);
      const permissions = grantsFlag(flags.permissions);
      const membership = await app.get(MembershipService).grant(flags.email, companyId, permissions);
      return {
        employee_id: membership.employeeId,
        company_id: membership.companyId,
        permissions: membership.permissions,
      };
    },
  },
  'session:revoke': {
    flags: { required: ['id'] },
    check(flags) {
      if (!CredentialService.isUuid(flags.id.trim().toLowerCase())) {
        throw new UsageError(`--id must be a session id (a UUID), got "${flags.id}"`);
      }
    },
    async run(app, flags) {
      const id = flags.id.trim().toLowerCase();
      if (!(await app.get(SessionService).revokeById(id))) throw new UsageError(`no session has the id ${id}`);
      return { id, revoked: true };
    },
  },
};
