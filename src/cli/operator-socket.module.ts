import { Module } from '@nestjs/common';
import { AuditEventsModule } from '../audit-events/audit-events.module';
import { AuthModule } from '../auth/auth.module';
import { CompanyModule } from '../company/company.module';
import { EmployeeModule } from '../employee/employee.module';
import { MembershipModule } from '../membership/membership.module';
import { SessionsModule } from '../sessions/sessions.module';
import { OperatorActionsService } from './operator-actions.service';
import { RateLimitOverrideActions } from './rate-limit-override-actions';
import { OperatorSocketServer } from './operator-socket.server';

/** The service's side of the CLI on the embedded database: what the commands need, and the socket. */
@Module({
  imports: [AuthModule, SessionsModule, CompanyModule, EmployeeModule, MembershipModule, AuditEventsModule],
  providers: [OperatorActionsService, RateLimitOverrideActions, OperatorSocketServer],
})
export class OperatorSocketModule {}
