import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { Company } from './company.entity';

@Injectable()
export class CompanyService {
  private readonly companies: Repository<Company>;

  constructor(dataSource: DataSource) {
    this.companies = dataSource.getRepository(Company);
  }

  create(name: string): Promise<Company> {
    return this.companies.save(this.companies.create({ name: name.trim() }));
  }

  findById(id: number): Promise<Company | null> {
    return this.companies.findOneBy({ id });
  }

  count(): Promise<number> {
    return this.companies.count();
  }
}
