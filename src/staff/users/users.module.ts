import { Module } from '@nestjs/common';
import { AuthModule } from '../../identity/auth/auth.module';
import { EmployeeModule } from '../../accounts/employee/employee.module';
import { UserPermissionsService } from './user-permissions.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';
import { AccountController } from './account.controller';
import { AccountMfaService } from './account-mfa.service';
import { AccountPasswordService } from './account-password.service';
import { UserRemovalService } from './user-removal.service';

@Module({
  imports: [EmployeeModule, AuthModule],
  controllers: [UsersController, AccountController],
  providers: [UsersService, UserPermissionsService, UserRemovalService, AccountPasswordService, AccountMfaService],
})
export class UsersModule {}
