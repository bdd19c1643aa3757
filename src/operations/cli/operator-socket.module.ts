import { Module } from '@nestjs/common';
import { AuditEventsModule } from '../../audit/audit-events/audit-events.module';
import { AuthModule } from '../../identity/auth/auth.module';
import { CompanyModule } from '../../accounts/company/company.module';
import { EmployeeModule } from '../../accounts/employee/employee.module';
import { MembershipModule } from '../../accounts/membership/membership.module';
import { SessionsModule } from '../../identity/sessions/sessions.module';
import { OperatorActionsService } from './operator-actions.service';
import { RateLimitOverrideActions } from './rate-limit-override-actions';
import { QuotaActions } from './quota-actions';
import { OperatorRules } from './operator-rules';
import { OperatorSocketServer } from './operator-socket.server';

/** The service's side of the CLI on the embedded database: what the commands need, and the socket. */
@Module({
  imports: [AuthModule, SessionsModule, CompanyModule, EmployeeModule, MembershipModule, AuditEventsModule],
  providers: [OperatorActionsService, OperatorRules, RateLimitOverrideActions, QuotaActions, OperatorSocketServer],
})
export class OperatorSocketModule {}
