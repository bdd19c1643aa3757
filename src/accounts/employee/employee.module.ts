import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Employee } from './employee.entity';
import { EmployeeService } from './employee.service';
import { PasswordHasher } from './password-hasher';

@Module({
  imports: [TypeOrmModule.forFeature([Employee])],
  providers: [EmployeeService, PasswordHasher],
  exports: [EmployeeService, PasswordHasher],
})
export class EmployeeModule {}
