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

  count(): Promise<number> {
    return this.companies.count();
  }
}
