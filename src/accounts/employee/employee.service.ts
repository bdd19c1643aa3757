import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { DataSource, type EntityManager, QueryFailedError, Repository } from 'typeorm';
import { ApiError } from '../../platform/common/errors/api-error';
import { SealsColumn } from '../../platform/keys/sealed-columns';
import { TOTP_SECRETS } from './employee-totp';
import { Employee } from './employee.entity';
import { PasswordHasher } from './password-hasher';

import { passwordProblem } from './password-rule';

export interface NewEmployee {
  email: string;
  password: string;
  name?: string;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Refuses a new password that breaks the password rule: 400 `error_validation` naming `field`. */
export function assertAcceptablePassword(password: string, email: string | null, field = 'password'): void {
  const problem = passwordProblem(password, email);
  if (problem) throw ApiError.validation(`${field} ${problem}`, [{ field, message: problem }]);
}

const UNIQUE_VIOLATION = '23505';

/** The one answer for an e-mail that already has an account, whichever company it belongs to. */
export const ACCOUNT_EXISTS =
  'An account with this e-mail already exists; invite it to this company instead (POST /v1/users/invitations).';

@Injectable()
@SealsColumn(TOTP_SECRETS)
export class EmployeeService {
  private readonly employees: Repository<Employee>;

  constructor(
    dataSource: DataSource,
    private readonly hasher: PasswordHasher,
  ) {
    this.employees = dataSource.getRepository(Employee);
  }

  /** Creates the employee, inside the caller's transaction when one is given. */
  async create(input: NewEmployee, manager?: EntityManager): Promise<Employee> {
    const repository = manager ? manager.getRepository(Employee) : this.employees;
    const email = normalizeEmail(input.email);
    if (!isEmail(email))
      throw ApiError.validation('email must be an e-mail address', [
        { field: 'email', message: 'must be an e-mail address' },
      ]);
    assertAcceptablePassword(input.password, email);
    const name = input.name?.trim() || email.split('@')[0];
    const passwordHash = await this.hasher.hash(input.password);
    try {
      const saved = await repository.save(repository.create({ email, name, passwordHash }));
      return { ...saved, passwordHash: undefined } as unknown as Employee;
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string })?.code === UNIQUE_VIOLATION) {
        // docs/contract.md: 409, and nothing about the account beyond its existence (not its companies or state).
        throw ApiError.conflict(ACCOUNT_EXISTS);
      }
      throw error;
    }
  }

  /** Inside the caller's transaction when a manager is given (the embedded database has one connection). */
  findByEmail(email: string, manager?: EntityManager): Promise<Employee | null> {
    return (manager ? manager.getRepository(Employee) : this.employees)
      .createQueryBuilder('employee')
      .where('lower(employee.email) = :email', { email: normalizeEmail(email) })
      .getOne();
  }

  /** The employee with the password hash loaded, for login only. */
  findWithPasswordHash(email: string): Promise<Employee | null> {
    return this.employees
      .createQueryBuilder('employee')
      .addSelect('employee.passwordHash')
      .where('lower(employee.email) = :email', { email: normalizeEmail(email) })
      .getOne();
  }

  count(): Promise<number> {
    return this.employees.count();
  }
}
