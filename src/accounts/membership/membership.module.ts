import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmployeeModule } from '../employee/employee.module';
import { Membership } from './membership.entity';
import { MembershipService } from './membership.service';

@Module({
  imports: [TypeOrmModule.forFeature([Membership]), EmployeeModule],
  providers: [MembershipService],
  exports: [MembershipService],
})
export class MembershipModule {}
