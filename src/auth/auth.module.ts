import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RoutePlanModule } from '../common/http/route-plan';
import { AppConfig } from '../config/app-config';
import { EmployeeModule } from '../employee/employee.module';
import { RevocationModule } from '../revocation/revocation.module';
import { AccountCheck } from './account-check.service';
import { AuthGuard } from './auth.guard';
import { JwksController } from './jwks.controller';
import { CredentialStrategies } from './credentials/credential-strategies';
import { CredentialService } from './credentials/credential.service';
import { JwtKeyRing } from './credentials/jwt-key-ring';
import { UsageRecorder } from './credentials/usage-recorder';
import { SecondFactorService } from './mfa/second-factor.service';
import { SealedColumnsResealer } from './mfa/sealed-columns';
import { SsoSecretBox, StreamSecretBox, TotpSecretBox } from './mfa/totp-secret-box';

/**
 * Checking credentials: an account's (e-mail, password, second factor, under the e-mail's lock) and a request's
 * (CredentialService over the strategies found at start: src/sessions/'s and src/api-keys/'s), the guard every route goes
 * through, and the keys JWTs are signed with. Login sessions are src/sessions/. Revocations travel on the
 * RevocationModule's bus, re-exported here for the modules that revoke.
 */
@Module({
  imports: [DiscoveryModule, EmployeeModule, RevocationModule, RoutePlanModule],
  controllers: [JwksController],
  providers: [
    { provide: JwtKeyRing, inject: [AppConfig], useFactory: (config: AppConfig) => JwtKeyRing.fromConfig(config) },
    {
      provide: TotpSecretBox,
      inject: [JwtKeyRing, AppConfig],
      useFactory: (ring: JwtKeyRing, config: AppConfig) => new TotpSecretBox(ring, config.encryptionKey),
    },
    {
      provide: SsoSecretBox,
      inject: [JwtKeyRing, AppConfig],
      useFactory: (ring: JwtKeyRing, config: AppConfig) => new SsoSecretBox(ring, config.encryptionKey),
    },
    {
      provide: StreamSecretBox,
      inject: [JwtKeyRing, AppConfig],
      useFactory: (ring: JwtKeyRing, config: AppConfig) => new StreamSecretBox(ring, config.encryptionKey),
    },
    // Re-seals the TOTP secrets and every column another module marks @SealsColumn.
    SealedColumnsResealer,
    CredentialStrategies,
    SecondFactorService,
    CredentialService,
    UsageRecorder,
    AccountCheck,
    AuthGuard,
  ],
  exports: [
    RevocationModule,
    AuthGuard,
    CredentialService,
    JwtKeyRing,
    AccountCheck,
    SecondFactorService,
    TotpSecretBox,
    SsoSecretBox,
    StreamSecretBox,
  ],
})
export class AuthModule {}
