import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuditModule } from './audit/audit.module';
import { AuditEventsModule } from './audit-events/audit-events.module';
import { EventStreamsModule } from './event-streams/event-streams.module';
import { AuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { DatabaseOutageLog } from './common/errors/database-outage-log';
import { InputSanityGuard } from './common/http/input-sanity';
import { createValidationPipe } from './common/http/validation.pipe';
import type { AppLogger } from './common/logging/logger';
import type { AppConfig } from './config/app-config';
import { CompanyModule } from './company/company.module';
import { CoreModule } from './core.module';
import { EmployeeModule } from './employee/employee.module';
import { featureModules } from './feature-modules';
import { FilesModule } from './files/files.module';
import { HealthModule } from './health/health.module';
import { MarketingConversationsModule } from './marketing-conversations/marketing-conversations.module';
import { MembershipModule } from './membership/membership.module';
import { OrdersModule } from './orders/orders.module';
import { ProductsModule } from './products/products.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RateLimitStatusModule } from './rate-limit-status/rate-limit-status.module';
import { SeedModule } from './seed/seed.module';
import { SessionsModule } from './sessions/sessions.module';
import { TokensModule } from './tokens/tokens.module';
import { SsoModule } from './sso/sso.module';
import { StepUpModule } from './step-up/step-up.module';
import { PasskeysModule } from './passkeys/passkeys.module';
import { InvitationsModule } from './invitations/invitations.module';
import { UsersModule } from './users/users.module';
import { OperatorSocketModule } from './cli/operator-socket.module';
import { ScimModule } from './scim/scim.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, logger),
        HealthModule,
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
        PasskeysModule,
        StepUpModule,
        OperatorSocketModule,
        ApiKeysModule,
        FilesModule,
        ProductsModule,
        OrdersModule,
        MarketingConversationsModule,
        AuditModule,
        AuditEventsModule,
        ScimModule,
        EventStreamsModule,
        // The modules added with `npm run new:module` (src/features.ts).
        ...featureModules().map((feature) => feature.module),
      ],
      providers: [
        DatabaseOutageLog,
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        // Order matters: the rate limit counts every request, those that then fail authentication included.
        { provide: APP_GUARD, useExisting: RateLimitGuard },
        { provide: APP_GUARD, useExisting: AuthGuard },
        // Last guard, so before every pipe and handler: NUL, unpaired surrogates and deep nesting never get further.
        { provide: APP_GUARD, useClass: InputSanityGuard },
      ],
    };
  }
}
