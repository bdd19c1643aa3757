import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { createValidationPipe } from './common/http/validation.pipe';
import type { AppLogger } from './common/logging/logger';
import type { AppConfig } from './config/app-config';
import { CompanyModule } from './company/company.module';
import { CoreModule } from './core.module';
import { EmployeeModule } from './employee/employee.module';
import { HealthModule } from './health/health.module';
import { MembershipModule } from './membership/membership.module';
import { SeedModule } from './seed/seed.module';

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
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
