import { randomUUID } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import type { ListedPasskeyDto, PasskeyDto } from './dto/passkeys.dto';
import { deletePasskey, insertPasskey, passkeysOf } from './passkey-records';
import { RelyingParty } from './relying-party';
import { storeChallenge, takeRegistrationChallenge } from './webauthn-challenges';

export const loginTicketInvalid = (what: string) =>
  new ApiError(ErrorCode.LoginTicketInvalid, HttpStatus.BAD_REQUEST, `The ${what} is unknown, used or expired.`);

/** One's own passkeys: adding (after a step-up, on the route), listing, removing. */
@Injectable()
export class PasskeyRegistrationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rp: RelyingParty,
    private readonly audit: AuditRecorder,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
  ) {}

  async options(principal: Principal): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const manager = this.dataSource.manager;
    const options = await this.rp.creationOptions(principal.employee, await passkeysOf(manager, principal.employeeId));
    await storeChallenge(manager, options.challenge, 'registration', principal.employeeId, this.clock.now());
    return options;
  }

  async add(
    principal: Principal,
    name: string,
    response: Record<string, unknown>,
    client: ClientInfo,
  ): Promise<PasskeyDto> {
    const now = this.clock.now();
    let challengeOpen = false;
    // The challenge is taken (single use) whatever the rest of the response says.
    const credential = await this.rp.verifyRegistration(response as unknown as RegistrationResponseJSON, async (c) => {
      challengeOpen = await takeRegistrationChallenge(this.dataSource.manager, principal.employeeId, c, now);
      return challengeOpen;
    });
    if (!challengeOpen) throw loginTicketInvalid('passkey challenge');
    if (!credential) {
      throw ApiError.validation('The passkey response does not verify.', [
        { field: 'response', message: 'not a valid registration for this service (origin, RP ID, user verification)' },
      ]);
    }
    const id = randomUUID();
    await this.dataSource.transaction(async (manager) => {
      const added = await insertPasskey(manager, {
        id,
        employee_id: principal.employeeId,
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
        name,
        created_at: now,
      });
      if (!added) throw ApiError.conflict('This passkey is registered already.');
      await this.audit.recordForAccount(
        manager,
        { employeeId: principal.employeeId },
        { type: 'passkey.added', ...requestContext(principal, client), details: { passkey_id: id, name } },
      );
    });
    await this.mfaChanged(principal.employeeId);
    return { id, name, created_at: now.toISOString() };
  }

  async list(principal: Principal): Promise<ListedPasskeyDto[]> {
    const rows = await passkeysOf(this.dataSource.manager, principal.employeeId);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      created_at: new Date(row.created_at).toISOString(),
      last_used_at: row.last_used_at ? new Date(row.last_used_at).toISOString() : null,
    }));
  }

  async remove(principal: Principal, id: string, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const name = await deletePasskey(manager, principal.employeeId, id);
      if (name === null) throw ApiError.notFound('No such passkey.');
      await this.audit.recordForAccount(
        manager,
        { employeeId: principal.employeeId },
        { type: 'passkey.removed', ...requestContext(principal, client), details: { passkey_id: id, name } },
      );
    });
    await this.mfaChanged(principal.employeeId);
  }

  /** After the commit: every instance drops the account's cached credentials, whose `mfa.passkeys` changed. */
  private mfaChanged(employeeId: number): Promise<void> {
    return this.bus.publish({ type: 'employee', employeeId });
  }
}
