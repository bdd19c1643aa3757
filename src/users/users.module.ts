import { Module } from '@nestjs/common';
import { EmployeeModule } from '../employee/employee.module';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [EmployeeModule],
  controllers: [UsersController],
  providers: [UsersService],
})
export class UsersModule {}
