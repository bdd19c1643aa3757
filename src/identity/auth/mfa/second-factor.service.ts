import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../../../platform/common/clock/clock';
import { acceptTotpStep, totpSecretOf } from '../../../accounts/employee/employee-totp';
import { sha256Hex } from '../credentials/sha256';
import { TotpSecretBox } from '../../../platform/keys/secret-boxes';
import { normalizeRecoveryCode, totpStepOf } from './totp';

/** What a client may send as the second factor (authenticatefinish, invitations/accept). */
export interface SecondFactorInput {
  otp?: string;
  recovery_code?: string;
}

export type SecondFactorOutcome = 'ok' | 'missing' | 'invalid';

/**
 * Checks a one-time code or a recovery code for an employee with TOTP on. Each code works once, on every
 * instance: the accepted time step is stored with a conditional UPDATE (only a later step than the last one
 * accepted passes), and a recovery code is used up by an UPDATE that only an unused code matches, so two
 * instances racing with the same code cannot both win.
 */
@Injectable()
export class SecondFactorService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: TotpSecretBox,
    private readonly clock: Clock,
  ) {}

  async check(
    employeeId: number,
    input: SecondFactorInput,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SecondFactorOutcome> {
    if (input.otp !== undefined) return (await this.useOtp(employeeId, input.otp, manager)) ? 'ok' : 'invalid';
    if (input.recovery_code !== undefined) {
      return (await this.useRecoveryCode(employeeId, input.recovery_code, manager)) ? 'ok' : 'invalid';
    }
    return 'missing';
  }

  /** Accepts the code once if it is right for the stored secret (enrolled, or pending confirmation). */
  private async useOtp(
    employeeId: number,
    code: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const sealed = await totpSecretOf(manager, employeeId);
    const opened = sealed ? this.box.open(sealed) : null;
    if (!opened) return false;
    const step = totpStepOf(opened.plain, code, this.clock.now().getTime());
    if (step === null) return false;
    return acceptTotpStep(manager, employeeId, step, opened.stale ? this.box.seal(opened.plain) : sealed!);
  }

  private async useRecoveryCode(employeeId: number, code: string, manager: EntityManager): Promise<boolean> {
    const used = await manager.query<Array<{ employee_id: number }>>(
      `WITH used AS (
         UPDATE recovery_code SET used_at = $3
          WHERE employee_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING employee_id)
       SELECT employee_id FROM used`,
      [employeeId, sha256Hex(normalizeRecoveryCode(code)), this.clock.now()],
    );
    return used.length === 1;
  }
}
