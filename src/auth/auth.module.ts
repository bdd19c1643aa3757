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
import { SessionService } from './sessions/session.service';
import { JwtKeyRing } from './tokens/jwt-key-ring';
import { TokenIssuer } from './tokens/token-issuer.service';

/** Staff login tokens: login, refresh, company switch, sessions, and the guard every route goes through. */
@Module({
  imports: [JwtModule.register({}), EmployeeModule, MembershipModule],
  controllers: [AuthController],
  providers: [
    { provide: JwtKeyRing, inject: [AppConfig], useFactory: (config: AppConfig) => JwtKeyRing.fromConfig(config) },
    CredentialService,
    UsageRecorder,
    RevocationBus,
    TokenIssuer,
    LoginService,
    SessionService,
    AuthGuard,
  ],
  exports: [AuthGuard, CredentialService, SessionService, RevocationBus],
})
export class AuthModule {}
