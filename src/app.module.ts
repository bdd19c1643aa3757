import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiKeysModule } from './identity/api-keys/api-keys.module';
import { AuditModule } from './audit/recorder/audit.module';
import { AuditEventsModule } from './audit/audit-events/audit-events.module';
import { EventStreamsModule } from './audit/event-streams/event-streams.module';
import { AuthModule } from './identity/auth/auth.module';
import { AllExceptionsFilter } from './platform/common/errors/all-exceptions.filter';
import { DatabaseOutageLog } from './platform/common/errors/database-outage-log';
import { InputSanityGuard } from './platform/common/http/input-sanity';
import { createValidationPipe } from './platform/common/http/validation.pipe';
import type { AppLogger } from './platform/common/logging/logger';
import type { AppConfig } from './platform/config/app-config';
import { CompanyModule } from './accounts/company/company.module';
import { CoreModule } from './core.module';
import { EmployeeModule } from './accounts/employee/employee.module';
import { featureModules } from './feature-modules';
import { HealthModule } from './operations/health/health.module';
import { SheddingModule } from './operations/shedding/shedding.module';
import { MembershipModule } from './accounts/membership/membership.module';
import { RequestGuard } from './operations/bootstrap/request.guard';
import { RateLimitModule } from './rate-limiting/limiter/rate-limit.module';
import { RateLimitStatusModule } from './rate-limiting/status/rate-limit-status.module';
import { SeedModule } from './operations/seed/seed.module';
import { SessionsModule } from './identity/sessions/sessions.module';
import { TokensModule } from './identity/tokens/tokens.module';
import { SsoModule } from './identity/sso/sso.module';
import { StepUpModule } from './identity/step-up/step-up.module';
import { CompanyPolicyModule } from './identity/company-policy/company-policy.module';
import { PasskeysModule } from './identity/passkeys/passkeys.module';
import { InvitationsModule } from './staff/invitations/invitations.module';
import { UsersModule } from './staff/users/users.module';
import { RolesModule } from './staff/roles/roles.module';
import { OperatorSocketModule } from './operations/cli/operator-socket.module';
import { ScimModule } from './staff/scim/scim.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, logger),
        HealthModule,
        SheddingModule,
        CompanyModule,
        EmployeeModule,
        MembershipModule,
        SeedModule,
        AuthModule,
        SessionsModule,
        TokensModule,
        SsoModule,
        RateLimitModule,
        RateLimitStatusModule,
        InvitationsModule,
        UsersModule,
        RolesModule,
        PasskeysModule,
        StepUpModule,
        CompanyPolicyModule,
        OperatorSocketModule,
        ApiKeysModule,
        // The feature modules of src/features.ts (products, orders, files, marketing conversations, and those added
        // with `npm run new:module`): their own route prefixes, so their place here only orders the OpenAPI document.
        ...featureModules().map((feature) => feature.module),
        AuditModule,
        AuditEventsModule,
        ScimModule,
        EventStreamsModule,
      ],
      providers: [
        DatabaseOutageLog,
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        // The one global guard: the rate limit, then the credential and access rule, then input sanity.
        InputSanityGuard,
        { provide: APP_GUARD, useClass: RequestGuard },
      ],
    };
  }
}
