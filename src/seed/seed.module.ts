import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { EmployeeModule } from '../employee/employee.module';
import { DemoDataService } from './demo-data.service';

@Module({
  imports: [DatabaseModule, EmployeeModule],
  providers: [DemoDataService],
  exports: [DemoDataService],
})
export class SeedModule {}
