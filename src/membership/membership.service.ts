import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { Company } from '../company/company.entity';
import { EmployeeService } from '../employee/employee.service';
import { Membership } from './membership.entity';
import { type Grant, normalizeGrants } from '../permissions/permission';

@Injectable()
export class MembershipService {
  constructor(
    @InjectRepository(Membership) private readonly memberships: Repository<Membership>,
    @InjectRepository(Company) private readonly companies: Repository<Company>,
    private readonly employees: EmployeeService,
  ) {}

  /**
   * Puts an employee in a company with exactly these permissions; calling it again for the same pair replaces
   * the permissions, so it is safe to repeat.
   */
  async grant(email: string, companyId: number, permissions: Grant[]): Promise<Membership> {
    const employee = await this.employees.findByEmail(email);
    if (!employee) throw ApiError.notFound(`no employee has the e-mail ${email.trim().toLowerCase()}`);
    const company = await this.companies.findOneBy({ id: companyId });
    if (!company) throw ApiError.notFound(`company ${companyId} does not exist`);
    const membership = this.memberships.create({
      employeeId: employee.id,
      companyId: company.id,
      permissions: normalizeGrants(permissions),
    });
    await this.memberships.upsert(membership, ['employeeId', 'companyId']);
    return this.memberships.findOneByOrFail({ employeeId: employee.id, companyId: company.id });
  }

  find(employeeId: number, companyId: number): Promise<Membership | null> {
    return this.memberships.findOneBy({ employeeId, companyId });
  }

  /** The companies an employee belongs to, by name. */
  companiesOf(employeeId: number): Promise<Membership[]> {
    return this.memberships.find({
      where: { employeeId },
      relations: { company: true },
      order: { company: { name: 'ASC', id: 'ASC' } },
    });
  }
}
