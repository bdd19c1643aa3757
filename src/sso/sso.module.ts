import { Global, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { SEALED_COLUMNS, type SealedColumn } from '../auth/mfa/sealed-columns';
import { AuthModule } from '../auth/auth.module';
import { LoginPolicy } from '../sessions/login-policy';
import { SessionsModule } from '../sessions/sessions.module';
import { BackchannelLogoutService } from './backchannel-logout.service';
import { RelyingParty } from './relying-party';
import { SsoConnectionController } from './sso-connection.controller';
import { SsoConnectionService } from './sso-connection.service';
import { SsoLoginController } from './sso-login.controller';
import { SsoLoginService } from './sso-login.service';
import { resealSsoClientSecrets } from './sso-connections';
import { SsoPolicy } from './sso-policy';

/**
 * Company single sign-on through OpenID Connect: the connection per company, the relying party, the login flow
 * and back-channel logout. Owns the sso_connection, sso_email_domain, sso_flow and sso_code tables. Global so
 * that its {@link LoginPolicy} reaches sessions/ and invitations/ without their importing this folder.
 */
@Global()
@Module({
  imports: [AuthModule, SessionsModule],
  controllers: [SsoConnectionController, SsoLoginController],
  providers: [
    RelyingParty,
    SsoPolicy,
    { provide: LoginPolicy, useExisting: SsoPolicy },
    SsoConnectionService,
    SsoLoginService,
    BackchannelLogoutService,
  ],
  exports: [LoginPolicy, RelyingParty],
})
export class SsoModule implements OnModuleInit {
  constructor(@Inject(SEALED_COLUMNS) private readonly sealedColumns: SealedColumn[]) {}

  /** The client secrets join the columns ENCRYPTION_KEY re-encrypts at start (before any bootstrap runs it). */
  onModuleInit(): void {
    if (this.sealedColumns.some((column) => column.name === SSO_CLIENT_SECRETS.name)) return;
    this.sealedColumns.push(SSO_CLIENT_SECRETS);
  }
}

const SSO_CLIENT_SECRETS: SealedColumn = {
  name: 'sso_connection.client_secret',
  purpose: 'sso_client_secret',
  resealBatch: resealSsoClientSecrets,
};
