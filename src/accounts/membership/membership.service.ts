import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull, Repository } from 'typeorm';
import { ApiError } from '../../platform/common/errors/api-error';
import { findCompany } from '../company/company-records';
import { EmployeeService } from '../employee/employee.service';
import { Membership } from './membership.entity';
import { type Grant, normalizeGrants } from '../../access/permissions/permission';

@Injectable()
export class MembershipService {
  private readonly memberships: Repository<Membership>;

  constructor(
    dataSource: DataSource,
    private readonly employees: EmployeeService,
  ) {
    this.memberships = dataSource.getRepository(Membership);
  }

  /**
   * Puts an employee in a company with exactly these permissions; calling it again for the same pair replaces
   * the permissions, so it is safe to repeat.
   */
  async grant(email: string, companyId: number, permissions: Grant[]): Promise<Membership> {
    const { membership } = await this.memberships.manager.transaction((manager) =>
      this.grantIn(manager, email, companyId, permissions),
    );
    return membership;
  }

  /**
   * {@link grant} inside the caller's transaction, also answering the permissions held before (null when the
   * membership is new), for the caller's security event. The row is locked until the transaction ends.
   */
  async grantIn(
    manager: EntityManager,
    email: string,
    companyId: number,
    permissions: Grant[],
  ): Promise<{ membership: Membership; before: Grant[] | null; email: string }> {
    const employee = await this.employees.findByEmail(email, manager);
    if (!employee) throw ApiError.notFound(`no employee has the e-mail ${email.trim().toLowerCase()}`);
    const company = await findCompany(manager, companyId);
    if (!company) throw ApiError.notFound(`company ${companyId} does not exist`);
    const existing = await manager.findOne(Membership, {
      where: { employeeId: employee.id, companyId: company.id },
      lock: { mode: 'pessimistic_write' },
    });
    const membership = manager.create(Membership, {
      employeeId: employee.id,
      companyId: company.id,
      permissions: normalizeGrants(permissions),
    });
    await manager.upsert(Membership, membership, ['employeeId', 'companyId']);
    const stored = await manager.findOneByOrFail(Membership, { employeeId: employee.id, companyId: company.id });
    return { membership: stored, before: existing?.permissions ?? null, email: employee.email };
  }

  /** The membership a login needs: a suspended one (SCIM `active: false`) is none. */
  find(employeeId: number, companyId: number): Promise<Membership | null> {
    return this.memberships.findOneBy({ employeeId, companyId, suspendedAt: IsNull() });
  }

  /** The companies an employee belongs to, by name; those where the membership is suspended are left out. */
  companiesOf(employeeId: number): Promise<Membership[]> {
    return this.memberships.find({
      where: { employeeId, suspendedAt: IsNull() },
      relations: { company: true },
      order: { company: { name: 'ASC', id: 'ASC' } },
    });
  }
}
