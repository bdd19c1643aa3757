import { Module } from '@nestjs/common';
import { EmployeeService } from './employee.service';
import { PasswordHasher } from './password-hasher';

@Module({
  providers: [EmployeeService, PasswordHasher],
  exports: [EmployeeService, PasswordHasher],
})
export class EmployeeModule {}
