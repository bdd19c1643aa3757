import { DynamicModule, Module } from '@nestjs/common';
import type { AppLogger } from './platform/common/logging/logger';
import type { AppConfig } from './platform/config/app-config';
import { AuditModule } from './audit/recorder/audit.module';
import { AuditEventsService } from './audit/recorder/audit-events.service';
import { AuditRetention } from './audit/recorder/audit-retention.service';
import { AuthModule } from './identity/auth/auth.module';
import { CompanyModule } from './accounts/company/company.module';
import { CoreModule } from './core.module';
import { EmployeeModule } from './accounts/employee/employee.module';
import { MembershipModule } from './accounts/membership/membership.module';
import { SessionsModule } from './identity/sessions/sessions.module';
import { OperatorActionsService } from './operations/cli/operator-actions.service';
import { RateLimitOverrideActions } from './operations/cli/rate-limit-override-actions';
import { QuotaActions } from './operations/cli/quota-actions';
import { OperatorRules } from './operations/cli/operator-rules';

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
      providers: [
        OperatorActionsService,
        OperatorRules,
        RateLimitOverrideActions,
        QuotaActions,
        AuditEventsService,
        AuditRetention,
      ],
    };
  }
}
