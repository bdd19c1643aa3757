import { DynamicModule, Module } from '@nestjs/common';
import type { AppLogger } from '../common/logging/logger';
import type { AppConfig } from '../config/app-config';
import { AuditModule } from '../audit/audit.module';
import { AuditEventsService } from '../audit/audit-events.service';
import { AuditRetention } from '../audit/audit-retention.service';
import { AuthModule } from '../auth/auth.module';
import { CompanyModule } from '../company/company.module';
import { CoreModule } from '../core.module';
import { EmployeeModule } from '../employee/employee.module';
import { MembershipModule } from '../membership/membership.module';
import { SessionsModule } from '../sessions/sessions.module';
import { OperatorActionsService } from './operator-actions.service';
import { RateLimitOverrideActions } from './rate-limit-override-actions';

@Module({})
export class CliModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: CliModule,
      imports: [
        CoreModule.forRoot(config, logger),
        CompanyModule,
        EmployeeModule,
        MembershipModule,
        AuthModule,
        SessionsModule,
        AuditModule,
      ],
      // The audit trail's reader and retention job, without the service's HTTP route and hourly schedule.
      providers: [OperatorActionsService, RateLimitOverrideActions, AuditEventsService, AuditRetention],
    };
  }
}
