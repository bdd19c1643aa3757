import { Module } from '@nestjs/common';
import { AuthModule } from '../../identity/auth/auth.module';
import { EmployeeModule } from '../../accounts/employee/employee.module';
import { SessionsModule } from '../../identity/sessions/sessions.module';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';

/** Invitations into a company (docs/contract.md): create, list, revoke, accept. */
@Module({
  imports: [AuthModule, SessionsModule, EmployeeModule],
  controllers: [InvitationsController],
  providers: [InvitationsService],
})
export class InvitationsModule {}
