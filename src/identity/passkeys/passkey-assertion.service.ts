import { HttpStatus, Injectable } from '@nestjs/common';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { DataSource } from 'typeorm';
import { AccountCheck } from '../auth/account-check.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { employeeById } from '../../accounts/employee/employee-records';
import { MembershipService } from '../../accounts/membership/membership.service';
import type { PasskeyLoginTicketDto, PasskeyOptionsDto } from './dto/passkeys.dto';
import { issueLoginTicket } from './login-tickets';
import { passkeyByCredentialId, recordPasskeyUse } from './passkey-records';
import { loginTicketInvalid } from './passkey-registration.service';
import { RelyingParty } from './relying-party';
import { storeChallenge, takeAssertionChallenge } from './webauthn-challenges';

const unknownPasskey = () =>
  new ApiError(ErrorCode.InvalidCredentials, HttpStatus.UNAUTHORIZED, 'The passkey could not be verified.');

/**
 * Signing in with a passkey (discoverable credential, user verification required): step 1 of the two-step login
 * answers the account's companies and a `login_ticket`; src/identity/sessions/ opens the session with it. The same check
 * proves a session's person again (step-up's reauthenticate).
 */
@Injectable()
export class PasskeyAssertionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rp: RelyingParty,
    private readonly accounts: AccountCheck,
    private readonly memberships: MembershipService,
    private readonly metrics: AppMetrics,
    private readonly clock: Clock,
  ) {}

  async options(): Promise<PasskeyOptionsDto> {
    const options = await this.rp.requestOptions();
    const id = await storeChallenge(this.dataSource.manager, options.challenge, 'assertion', null, this.clock.now());
    return { challenge_id: id, options: options as unknown as Record<string, unknown> };
  }

  async authenticate(
    challengeId: string,
    response: Record<string, unknown>,
    client: ClientInfo,
  ): Promise<PasskeyLoginTicketDto> {
    const employeeId = await this.verify(challengeId, response, client);
    const memberships = await this.memberships.companiesOf(employeeId);
    const ticket = await issueLoginTicket(this.dataSource.manager, employeeId, this.clock.now());
    return {
      companies: memberships.map(({ company }) => ({ id: company!.id, name: company!.name })),
      login_ticket: ticket,
    };
  }

  /**
   * Takes the challenge (once, on whichever instance), checks the assertion against the stored passkey under its
   * account's login lock, moves the counter forward, and answers the account. `expectedEmployeeId`: only a passkey
   * of this account is accepted (a reauthentication); another account's passkey fails like a bad signature.
   */
  async verify(
    challengeId: string,
    response: Record<string, unknown>,
    client: ClientInfo,
    expectedEmployeeId?: number,
  ): Promise<number> {
    const now = this.clock.now();
    const challenge = await takeAssertionChallenge(this.dataSource.manager, challengeId, now);
    if (challenge === null) throw loginTicketInvalid('passkey challenge');
    const assertion = response as unknown as AuthenticationResponseJSON;
    const passkey =
      typeof assertion.id === 'string' ? await passkeyByCredentialId(this.dataSource.manager, assertion.id) : null;
    const ownerId = expectedEmployeeId ?? passkey?.employee_id;
    // A credential no account holds (removed, or never registered here) has no lock to count toward.
    const owner = ownerId === undefined ? null : await employeeById(this.dataSource.manager, ownerId);
    if (!owner) {
      this.metrics.login('invalid_credentials', 'passkey');
      throw unknownPasskey();
    }
    await this.accounts.provePasskey(
      owner,
      async () => {
        if (!passkey || passkey.employee_id !== owner.id) return false;
        const counter = await this.rp.verifyAssertion(assertion, challenge, passkey);
        return counter !== null && recordPasskeyUse(this.dataSource.manager, passkey.id, passkey.counter, counter, now);
      },
      client,
    );
    return owner.id;
  }
}
