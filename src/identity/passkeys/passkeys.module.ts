import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MembershipModule } from '../../accounts/membership/membership.module';
import { PasskeyAssertionService } from './passkey-assertion.service';
import { PasskeyRegistrationService } from './passkey-registration.service';
import { PasskeysController } from './passkeys.controller';
import { RelyingParty } from './relying-party';

/**
 * Passkeys (WebAuthn, @simplewebauthn/server): the passkey, webauthn_challenge and login_ticket tables, adding
 * and removing one's passkeys, and step 1 of a passkey login. src/identity/sessions/ takes the login tickets
 * (login-tickets.ts); src/identity/step-up/ uses the assertion check to reauthenticate.
 */
@Module({
  imports: [AuthModule, MembershipModule],
  controllers: [PasskeysController],
  providers: [RelyingParty, PasskeyRegistrationService, PasskeyAssertionService],
  exports: [PasskeyAssertionService],
})
export class PasskeysModule {}
