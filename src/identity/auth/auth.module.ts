import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RoutePlanModule } from '../../platform/common/http/route-plan';
import { EmployeeModule } from '../../accounts/employee/employee.module';
import { RevocationModule } from '../../platform/revocation/revocation.module';
import { AccountCheck } from './account-check.service';
import { AuthGuard } from './auth.guard';
import { JwksController } from './jwks.controller';
import { CredentialStrategies } from './credentials/credential-strategies';
import { CredentialService } from './credentials/credential.service';
import { UsageRecorder } from './credentials/usage-recorder';
import { SecondFactorService } from './mfa/second-factor.service';
import { KeysModule } from '../../platform/keys/keys.module';

/**
 * Checking credentials: an account's (e-mail, password, second factor, under the e-mail's lock) and a request's
 * (CredentialService over the strategies found at start: src/identity/sessions/'s and src/identity/api-keys/'s), the guard every route goes
 * through; the keys (KeysModule, re-exported). Login sessions are src/identity/sessions/. Revocations travel on the
 * RevocationModule's bus, re-exported here for the modules that revoke.
 */
@Module({
  imports: [DiscoveryModule, EmployeeModule, KeysModule, RevocationModule, RoutePlanModule],
  controllers: [JwksController],
  providers: [CredentialStrategies, SecondFactorService, CredentialService, UsageRecorder, AccountCheck, AuthGuard],
  exports: [RevocationModule, AuthGuard, CredentialService, KeysModule, AccountCheck, SecondFactorService],
})
export class AuthModule {}
