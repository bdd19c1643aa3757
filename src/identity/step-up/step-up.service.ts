import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { AccountCheck } from '../auth/account-check.service';
import type { Principal } from '../../access/rules/principal';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { PasskeyAssertionService } from '../passkeys/passkey-assertion.service';
import { markSessionProven } from '../sessions/session-proof';
import type { ReauthenticateDto } from './dto/reauthenticate.dto';

/**
 * `POST /v1/users/me/reauthenticate`: the session's person proves themselves again, so that step-up routes
 * (`@Auth({ stepUp: true })`) admit the session for 15 minutes. Wrong answers count toward the account's login
 * lock exactly like a failed login (AccountCheck), so the route cannot be used to guess a password.
 */
@Injectable()
export class StepUpService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountCheck,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
    private readonly passkeys: PasskeyAssertionService,
  ) {}

  async reauthenticate(principal: Principal, body: ReauthenticateDto, client: ClientInfo): Promise<void> {
    const byPasskey = body.challenge_id !== undefined || body.response !== undefined;
    if (byPasskey) {
      if (body.challenge_id === undefined || body.response === undefined || body.current_password !== undefined) {
        throw ApiError.validation('Send {challenge_id, response} for a passkey, or {current_password, otp?}.', [
          { field: body.challenge_id === undefined ? 'challenge_id' : 'response', message: 'both are required' },
        ]);
      }
      await this.passkeys.verify(body.challenge_id, body.response, client, principal.employeeId);
      return this.prove(principal, client, 'passkey');
    }
    if (body.current_password === undefined) {
      throw ApiError.validation('Send current_password (and otp when TOTP is on), or a passkey.', [
        { field: 'current_password', message: 'current_password is required' },
      ]);
    }
    await this.accounts.verifyAccount(
      principal.employee.email,
      body.current_password,
      client,
      { otp: body.otp },
      principal.companyId,
    );
    await this.prove(principal, client, 'password');
  }

  /** Records the proof and its event in one transaction; a session ended meanwhile cannot be proven. */
  private async prove(principal: Principal, client: ClientInfo, method: 'password' | 'passkey'): Promise<void> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      if (!(await markSessionProven(manager, principal.sessionId!, now))) {
        throw new ApiError(ErrorCode.JwtBlacklisted, HttpStatus.BAD_REQUEST, 'The session has ended.');
      }
      await this.audit.record(manager, {
        type: 'session.reauthenticated',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        details: { method },
      });
    });
  }
}
