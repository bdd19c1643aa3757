import { Module } from '@nestjs/common';
import { EmployeeModule } from '../employee/employee.module';
import { MembershipService } from './membership.service';

@Module({
  imports: [EmployeeModule],
  providers: [MembershipService],
  exports: [MembershipService],
})
export class MembershipModule {}
