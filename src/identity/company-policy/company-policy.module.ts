import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SessionsModule } from '../sessions/sessions.module';
import { CompanyPolicyController } from './company-policy.controller';
import { CompanyPolicyService } from './company-policy.service';

/**
 * GET/PUT /v1/company/policy over the company_policy table of src/accounts/company-policy/. Where the policy is
 * enforced: logins, switches and refreshes (sessions/company-policy-gate.ts), each request (auth's guard, from
 * what the cached credential carries), token lifetimes (sessions' token issuer).
 */
@Module({
  imports: [AuthModule, SessionsModule],
  controllers: [CompanyPolicyController],
  providers: [CompanyPolicyService],
})
export class CompanyPolicyModule {}
