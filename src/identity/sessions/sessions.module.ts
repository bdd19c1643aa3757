import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { AuthModule } from '../auth/auth.module';
import { MembershipModule } from '../../accounts/membership/membership.module';
import { CompanySwitchController } from './company-switch.controller';
import { CompanySwitchService } from './company-switch.service';
import { JwtStrategy } from './jwt.strategy';
import { LoginPolicy } from './login-policy';
import { LoginController } from './login.controller';
import { LoginService } from './login.service';
import { SessionStore, TypeOrmSessionStore } from './session-store';
import { SessionTokens } from './session-tokens.service';
import { SessionService } from './session.service';
import { SessionsController } from './sessions.controller';
import { TokenIssuer } from './token-issuer.service';

/**
 * Login sessions, from start to end: login (authenticateinit/finish), the issued tokens and their lifetime,
 * the JWT look-up that enforces it, refresh rotation, the working-company switch with its limit, logout, the
 * caller's session list and revocation, and the login policy (the rules of whoever marks theirs, src/identity/sso/). Owns the login_session and issued_token tables; end-sessions.ts is
 * how other folders end sessions inside their own transaction.
 */
@Module({
  imports: [DiscoveryModule, JwtModule.register({}), AuthModule, MembershipModule],
  controllers: [CompanySwitchController, LoginController, SessionsController],
  providers: [
    { provide: SessionStore, useClass: TypeOrmSessionStore },
    JwtStrategy,
    LoginPolicy,
    TokenIssuer,
    SessionTokens,
    SessionService,
    LoginService,
    CompanySwitchService,
  ],
  exports: [SessionService, LoginService, LoginPolicy],
})
export class SessionsModule {}
