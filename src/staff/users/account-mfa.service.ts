import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { sha256Hex } from '../../identity/auth/credentials/sha256';
import { AccountCheck } from '../../identity/auth/account-check.service';
import { newRecoveryCodes, newTotpSecret, normalizeRecoveryCode } from '../../identity/auth/mfa/totp';
import { TotpSecretBox } from '../../platform/keys/secret-boxes';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { clearTotp, enableTotp, lockTotpState, startTotp, totpStateOf } from '../../accounts/employee/employee-totp';
import { endSessionsOf } from '../../identity/sessions/end-sessions';
import { assertAccountTakeoverAllowed } from './staff-guard';

/** A set-up waiting for its first code: a secret stored, TOTP not on yet. */
const isPending = (state: { pending: boolean; on: boolean } | undefined) => state?.pending === true && !state.on;

export interface TotpEnrolment {
  secret: string;
  otpauth_uri: string;
  recovery_codes: string[];
}

/**
 * TOTP for one's own account (enrol, confirm, disable) and an administrator turning it off for someone. The secret
 * is stored only sealed (TotpSecretBox) and returned once, at enrolment; recovery codes only as hashes.
 */
@Injectable()
export class AccountMfaService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountCheck,
    private readonly box: TotpSecretBox,
    private readonly bus: RevocationBus,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
  ) {}

  /**
   * A new secret and recovery codes, pending until confirmed with a code (so a mistyped set-up never locks anyone
   * out). Enrolling again while on is refused: disable first, which needs a code.
   */
  async enrol(principal: Principal, currentPassword: string, client: ClientInfo): Promise<TotpEnrolment> {
    const employee = await this.accounts.checkCredentials(
      principal.employee.email,
      currentPassword,
      client,
      principal.companyId,
    );
    if (employee.totpEnabledAt !== null) {
      throw ApiError.validation('TOTP is already on; turn it off first', [
        { field: 'current_password', message: 'TOTP is already on for this account; turn it off first' },
      ]);
    }
    const { secret, uri } = newTotpSecret(principal.employee.email);
    const codes = newRecoveryCodes();
    await this.dataSource.transaction(async (manager) => {
      await startTotp(manager, principal.employeeId, this.box.seal(secret));
      await this.replaceRecoveryCodes(manager, principal.employeeId, codes);
    });
    return { secret, otpauth_uri: uri, recovery_codes: codes };
  }

  /** TOTP is on from now; every other session of the account ends. A wrong code counts as a failed login. */
  async confirm(principal: Principal, otp: string, client: ClientInfo): Promise<void> {
    const noSetUp = () =>
      ApiError.validation('There is no TOTP set-up to confirm; start one first', [
        { field: 'otp', message: 'no TOTP set-up is waiting for confirmation' },
      ]);
    if (!isPending(await totpStateOf(this.dataSource.manager, principal.employeeId))) throw noSetUp();
    await this.accounts.proveSecondFactor(principal.employee, { otp }, client, principal.companyId);
    const ended = await this.dataSource.transaction(async (manager) => {
      // Re-read under the row lock: a set-up started again meanwhile is not confirmed by the older code.
      if (!isPending(await lockTotpState(manager, principal.employeeId))) throw noSetUp();
      const now = this.clock.now();
      await enableTotp(manager, principal.employeeId, now);
      const sessions = await endSessionsOf(manager, principal.employeeId, now, 'mfa_enabled', principal.sessionId);
      await this.audit.recordForAccount(
        manager,
        { employeeId: principal.employeeId },
        { type: 'mfa.enabled', ...requestContext(principal, client), details: { sessions_ended: sessions.length } },
      );
      return sessions;
    });
    await Promise.all(ended.map((sessionId) => this.bus.publish({ type: 'session', sessionId })));
    await this.mfaChanged(principal.employeeId);
  }

  /** Needs the password and a current code from the app; a wrong code counts as a failed login. */
  async disable(principal: Principal, currentPassword: string, otp: string, client: ClientInfo): Promise<void> {
    const employee = await this.accounts.checkCredentials(
      principal.employee.email,
      currentPassword,
      client,
      principal.companyId,
    );
    if (employee.totpEnabledAt === null) {
      throw ApiError.validation('TOTP is not on for this account', [{ field: 'otp', message: 'TOTP is not on' }]);
    }
    await this.accounts.proveSecondFactor(employee, { otp }, client, principal.companyId);
    await this.dataSource.transaction(async (manager) => {
      await this.turnOff(manager, principal.employeeId);
      await this.audit.recordForAccount(
        manager,
        { employeeId: principal.employeeId },
        { type: 'mfa.disabled', ...requestContext(principal, client), details: { by: 'self' } },
      );
    });
    await this.mfaChanged(principal.employeeId);
  }

  /** An administrator turns someone's TOTP off, under the same conditions as a password reset. */
  async adminReset(principal: Principal, employeeId: number, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const { email } = await assertAccountTakeoverAllowed(manager, principal, employeeId);
      await this.turnOff(manager, employeeId);
      await this.audit.record(manager, {
        type: 'mfa.disabled',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'employee', id: employeeId, email },
        details: { by: 'administrator' },
      });
    });
    await this.mfaChanged(employeeId);
  }

  /** After the commit: every instance drops the account's cached credentials, whose `mfa` just changed. */
  private mfaChanged(employeeId: number): Promise<void> {
    return this.bus.publish({ type: 'employee', employeeId });
  }

  private async turnOff(manager: EntityManager, employeeId: number): Promise<void> {
    await clearTotp(manager, employeeId);
    await manager.query('DELETE FROM recovery_code WHERE employee_id = $1', [employeeId]);
  }

  private async replaceRecoveryCodes(manager: EntityManager, employeeId: number, codes: string[]): Promise<void> {
    await manager.query('DELETE FROM recovery_code WHERE employee_id = $1', [employeeId]);
    const hashes = codes.map((code) => sha256Hex(normalizeRecoveryCode(code)));
    await manager.query('INSERT INTO recovery_code (employee_id, code_hash) SELECT $1, unnest($2::char(64)[])', [
      employeeId,
      hashes,
    ]);
  }
}
