import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { HOST_RESOLVER, systemHostResolver } from '../../platform/common/outbound/pinned-request';
import { SessionsModule } from '../sessions/sessions.module';
import { BackchannelLogoutService } from './backchannel-logout.service';
import { DomainProver } from './domain-prover';
import { RelyingParty } from './relying-party';
import { SsoCallbackService } from './sso-callback.service';
import { SsoConnectionController } from './sso-connection.controller';
import { SsoConnectionService } from './sso-connection.service';
import { SsoLoginController } from './sso-login.controller';
import { SsoLoginService } from './sso-login.service';
import { SsoPolicy } from './sso-policy';

/**
 * Company single sign-on through OpenID Connect: the connection per company and the DNS proof of its domains,
 * the relying party (every request to a provider under the outbound address policy), the login flow bound to
 * the browser, and back-channel logout. Owns the sso_connection, sso_email_domain, sso_flow, sso_code and
 * sso_logout_jti tables. Its {@link SsoPolicy} is marked as login rules, which sessions/'s LoginPolicy finds at
 * start: sessions/, invitations/ and scim/ never import this folder, and an app assembled without it (the CLI)
 * boots without it.
 */
@Module({
  imports: [AuthModule, SessionsModule],
  controllers: [SsoConnectionController, SsoLoginController],
  providers: [
    { provide: HOST_RESOLVER, useValue: systemHostResolver },
    RelyingParty,
    DomainProver,
    SsoPolicy,
    SsoConnectionService,
    SsoLoginService,
    SsoCallbackService,
    BackchannelLogoutService,
  ],
})
export class SsoModule {}
