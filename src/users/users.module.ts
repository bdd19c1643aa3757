import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EmployeeModule } from '../employee/employee.module';
import { UserPermissionsService } from './user-permissions.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';
import { UserRemovalService } from './user-removal.service';

@Module({
  imports: [EmployeeModule, AuthModule],
  controllers: [UsersController],
  providers: [UsersService, UserPermissionsService, UserRemovalService],
})
export class UsersModule {}
