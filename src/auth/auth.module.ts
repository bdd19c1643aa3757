import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { EmployeeModule } from '../employee/employee.module';
import { MembershipModule } from '../membership/membership.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { CredentialService } from './credentials/credential.service';
import { RevocationBus } from './credentials/revocation-bus';
import { UsageRecorder } from './credentials/usage-recorder';
import { LoginService } from './login.service';
import { SecondFactorService } from './mfa/second-factor.service';
import { TotpSecretBox } from './mfa/totp-secret-box';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { CREDENTIAL_STRATEGIES } from './strategies/credential-strategy';
import { JwtStrategy } from './strategies/jwt.strategy';
import { JwtKeyRing } from './tokens/jwt-key-ring';
import { TokenIssuer } from './tokens/token-issuer.service';

/**
 * Staff credentials: the two-step login, token issuing, the credential strategies (JWT, API key) behind
 * CredentialService, and the guard every route goes through. Sessions and the company switch build on it.
 */
@Module({
  imports: [JwtModule.register({}), EmployeeModule, MembershipModule],
  controllers: [AuthController],
  providers: [
    { provide: JwtKeyRing, inject: [AppConfig], useFactory: (config: AppConfig) => JwtKeyRing.fromConfig(config) },
    { provide: TotpSecretBox, inject: [JwtKeyRing], useFactory: (ring: JwtKeyRing) => new TotpSecretBox(ring) },
    SecondFactorService,
    ApiKeyStrategy,
    JwtStrategy,
    {
      // Asked in this order; a new credential kind is one more class here.
      provide: CREDENTIAL_STRATEGIES,
      inject: [ApiKeyStrategy, JwtStrategy],
      useFactory: (apiKey: ApiKeyStrategy, jwt: JwtStrategy) => [apiKey, jwt],
    },
    CredentialService,
    UsageRecorder,
    RevocationBus,
    TokenIssuer,
    LoginService,
    AuthGuard,
  ],
  exports: [AuthGuard, CredentialService, RevocationBus, TokenIssuer, LoginService, SecondFactorService, TotpSecretBox],
})
export class AuthModule {}
