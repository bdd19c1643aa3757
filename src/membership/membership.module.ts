import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Company } from '../company/company.entity';
import { EmployeeModule } from '../employee/employee.module';
import { Membership } from './membership.entity';
import { MembershipService } from './membership.service';

@Module({
  // Company's own repository, not CompanyModule: that module (the working-company switch) builds on this one.
  imports: [TypeOrmModule.forFeature([Membership, Company]), EmployeeModule],
  providers: [MembershipService],
  exports: [MembershipService],
})
export class MembershipModule {}
