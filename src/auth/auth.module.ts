import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { RoutePlanModule } from '../common/http/route-plan';
import { AppConfig } from '../config/app-config';
import { EmployeeModule } from '../employee/employee.module';
import { MembershipModule } from '../membership/membership.module';
import { RevocationModule } from '../revocation/revocation.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { CredentialService } from './credentials/credential.service';
import { UsageRecorder } from './credentials/usage-recorder';
import { LoginService } from './login.service';
import { SecondFactorService } from './mfa/second-factor.service';
import { TotpSecretBox } from './mfa/totp-secret-box';
import { SessionService } from './sessions/session.service';
import { SessionTokens } from './sessions/session-tokens.service';
import { TokenIssuer } from './sessions/token-issuer.service';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { CREDENTIAL_STRATEGIES } from './credentials/credential-strategy';
import { JwtStrategy } from './strategies/jwt.strategy';
import { JwtKeyRing } from './tokens/jwt-key-ring';

/**
 * Staff credentials: the two-step login, login sessions with their issued tokens (refresh rotation, the company
 * switch's token exchange, logout, revocation), the credential strategies (JWT, API key) behind
 * CredentialService, and the guard every route goes through. Revocations travel on the RevocationModule's bus,
 * re-exported here for the modules that revoke.
 */
@Module({
  imports: [JwtModule.register({}), EmployeeModule, MembershipModule, RevocationModule, RoutePlanModule],
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
    TokenIssuer,
    SessionTokens,
    SessionService,
    LoginService,
    AuthGuard,
  ],
  exports: [
    RevocationModule,
    AuthGuard,
    CredentialService,
    SessionTokens,
    SessionService,
    LoginService,
    SecondFactorService,
    TotpSecretBox,
  ],
})
export class AuthModule {}
