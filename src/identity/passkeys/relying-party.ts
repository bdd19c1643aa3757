import { Injectable } from '@nestjs/common';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { AppConfig } from '../../platform/config/app-config';
import type { PasskeyRow } from './passkey-records';
import { CHALLENGE_TTL_MS } from './webauthn-challenges';

/** ES256, EdDSA (Ed25519) and RS256: what platform authenticators and security keys sign with. */
const ALGORITHMS = [-7, -8, -257];

/** The user handle a passkey carries back at sign-in: the account's id, so a swapped handle is caught. */
export const userHandleOf = (employeeId: number) => Buffer.from(`employee:${employeeId}`).toString('base64url');

/**
 * The relying party's side of WebAuthn (@simplewebauthn/server) with this service's rules: discoverable
 * credentials, user verification required, `none` attestation (no device attestation is trusted or asked for),
 * the configured RP ID and origins. The ceremonies' state (challenges, counters) lives in the database, not here.
 */
@Injectable()
export class RelyingParty {
  constructor(private readonly config: AppConfig) {}

  creationOptions(
    employee: { id: number; email: string; name: string },
    existing: PasskeyRow[],
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: 'Staff sign-in',
      rpID: this.config.webauthnRpId,
      userName: employee.email,
      userDisplayName: employee.name || employee.email,
      userID: Buffer.from(userHandleOf(employee.id), 'base64url'),
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credential_id })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
      timeout: CHALLENGE_TTL_MS,
    });
  }

  requestOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: this.config.webauthnRpId,
      userVerification: 'required',
      timeout: CHALLENGE_TTL_MS,
    });
  }

  /** The new credential, or null when the response does not verify (wrong origin, RP ID, challenge, no UV). */
  async verifyRegistration(
    response: RegistrationResponseJSON,
    challengeIsOpen: (challenge: string) => Promise<boolean>,
  ) {
    try {
      const verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challengeIsOpen,
        expectedOrigin: this.config.webauthnOrigins,
        expectedRPID: this.config.webauthnRpId,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      return verified.verified ? verified.registrationInfo.credential : null;
    } catch {
      return null;
    }
  }

  /**
   * The new signature counter, or null when the assertion does not verify: wrong origin or RP ID, another
   * challenge, no user verification, a bad signature, or a counter that did not move forward (a cloned key).
   */
  async verifyAssertion(
    response: AuthenticationResponseJSON,
    challenge: string,
    passkey: PasskeyRow,
  ): Promise<number | null> {
    const handle = response.response?.userHandle;
    if (handle !== undefined && handle !== userHandleOf(passkey.employee_id)) return null;
    try {
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.config.webauthnOrigins,
        expectedRPID: this.config.webauthnRpId,
        credential: {
          id: passkey.credential_id,
          publicKey: new Uint8Array(passkey.public_key),
          counter: Number(passkey.counter),
          transports: passkey.transports as never,
        },
        requireUserVerification: true,
      });
      return verified.verified ? verified.authenticationInfo.newCounter : null;
    } catch {
      return null;
    }
  }
}
