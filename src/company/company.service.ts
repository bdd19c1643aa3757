import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Company } from './company.entity';

@Injectable()
export class CompanyService {
  constructor(@InjectRepository(Company) private readonly companies: Repository<Company>) {}

  create(name: string): Promise<Company> {
    return this.companies.save(this.companies.create({ name: name.trim() }));
  }

  findById(id: number): Promise<Company | null> {
    return this.companies.findOneBy({ id });
  }

  /** The companies an employee belongs to, by name (the membership table is named, not imported: it builds on us). */
  ofEmployee(employeeId: number): Promise<Company[]> {
    return this.companies
      .createQueryBuilder('company')
      .innerJoin('membership', 'membership', 'membership.company_id = company.id')
      .where('membership.employee_id = :employeeId', { employeeId })
      .orderBy('company.name', 'ASC')
      .addOrderBy('company.id', 'ASC')
      .getMany();
  }

  count(): Promise<number> {
    return this.companies.count();
  }
}
