import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../platform/database/database.module';
import { EmployeeModule } from '../../accounts/employee/employee.module';
import { DemoDataService } from './demo-data.service';

@Module({
  imports: [DatabaseModule, EmployeeModule],
  providers: [DemoDataService],
  exports: [DemoDataService],
})
export class SeedModule {}
