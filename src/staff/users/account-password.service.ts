import { randomBytes, randomUUID } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { sha256Hex } from '../../identity/auth/credentials/sha256';
import { AccountCheck } from '../../identity/auth/account-check.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { assertAcceptablePassword, normalizeEmail } from '../../accounts/employee/employee.service';
import { employeeIdOf, setPasswordHash } from '../../accounts/employee/employee-records';
import { PasswordHasher } from '../../accounts/employee/password-hasher';
import type { SessionEndReason } from '../../identity/sessions/login-session.entity';
import { endSessionsOf } from '../../identity/sessions/end-sessions';
import { assertAccountTakeoverAllowed } from './staff-guard';

/** docs/contract.md: a reset code is valid 24 hours, once. */
export const RESET_CODE_TTL_MS = 24 * 60 * 60 * 1000;

const invalidCode = () =>
  new ApiError(
    ErrorCode.ResetCodeInvalid,
    HttpStatus.BAD_REQUEST,
    'The password-reset code is not valid (unknown, used, expired, or for another e-mail).',
  );

/** Changing one's own password, and resetting someone's with a single-use code an administrator issued. */
@Injectable()
export class AccountPasswordService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountCheck,
    private readonly hasher: PasswordHasher,
    private readonly bus: RevocationBus,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
  ) {}

  /** A wrong current password is 401 and counts toward the login lock; every other session ends. */
  async change(principal: Principal, current: string, next: string, client: ClientInfo): Promise<void> {
    await this.accounts.checkCredentials(principal.employee.email, current, client, principal.companyId);
    assertAcceptablePassword(next, principal.employee.email, 'new_password');
    const passwordHash = await this.hasher.hash(next);
    const ended = await this.dataSource.transaction(async (manager) => {
      const sessions = await this.replacePassword(manager, principal.employeeId, passwordHash, 'password_changed', {
        keep: principal.sessionId,
      });
      await this.audit.recordForAccount(
        manager,
        { employeeId: principal.employeeId },
        {
          type: 'password.changed',
          ...requestContext(principal, client),
          details: { sessions_ended: sessions.length },
        },
      );
      return sessions;
    });
    await this.announce(ended);
  }

  /** Issues a code shown once; only the SHA-256 of it is stored. Earlier open codes of the employee stop working. */
  async issueReset(
    principal: Principal,
    employeeId: number,
    client: ClientInfo,
  ): Promise<{ code: string; expires_at: string }> {
    const code = randomBytes(24).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + RESET_CODE_TTL_MS);
    await this.dataSource.transaction(async (manager) => {
      const { email } = await assertAccountTakeoverAllowed(manager, principal, employeeId);
      await manager.query('UPDATE password_reset SET used_at = $2 WHERE employee_id = $1 AND used_at IS NULL', [
        employeeId,
        now,
      ]);
      await manager.query(
        `INSERT INTO password_reset (id, employee_id, company_id, code_hash, created_by_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [randomUUID(), employeeId, principal.companyId, sha256Hex(code), principal.employeeId, now, expiresAt],
      );
      await this.audit.record(manager, {
        type: 'password.reset_issued',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'employee', id: employeeId, email },
        details: { expires_at: expiresAt.toISOString() },
      });
    });
    return { code, expires_at: expiresAt.toISOString() };
  }

  /**
   * Sets a new password with a code; every session of the account ends; TOTP stays as it was. An unknown e-mail
   * and a wrong code get the same answer in about the same time (the new password is hashed either way).
   */
  async resetWithCode(email: string, code: string, next: string, client: ClientInfo): Promise<void> {
    assertAcceptablePassword(next, email, 'new_password');
    const passwordHash = await this.hasher.hash(next);
    const now = this.clock.now();
    const ended = await this.dataSource.transaction(async (manager) => {
      const used = await manager.query<Array<{ employee_id: number }>>(
        // A CTE, because TypeORM answers a bare UPDATE … RETURNING as [rows, count].
        `WITH used AS (
           UPDATE password_reset SET used_at = $3
            WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $3 AND employee_id = $2
            RETURNING employee_id)
         SELECT employee_id FROM used`,
        [sha256Hex(code), await employeeIdOf(manager, normalizeEmail(email)), now],
      );
      if (used.length !== 1) throw invalidCode();
      const employeeId = used[0].employee_id;
      const sessions = await this.replacePassword(manager, employeeId, passwordHash, 'password_reset', {});
      await this.audit.recordForAccount(
        manager,
        { employeeId },
        {
          type: 'password.reset',
          actor: { kind: 'employee', id: employeeId, email: normalizeEmail(email) },
          ip: client.ip,
          userAgent: client.userAgent,
          details: { sessions_ended: sessions.length },
        },
      );
      return sessions;
    });
    await this.announce(ended);
  }

  private async replacePassword(
    manager: EntityManager,
    employeeId: number,
    passwordHash: string,
    reason: SessionEndReason,
    { keep = null }: { keep?: string | null },
  ): Promise<string[]> {
    const now = this.clock.now();
    await setPasswordHash(manager, employeeId, passwordHash, now);
    return endSessionsOf(manager, employeeId, now, reason, keep);
  }

  /** After the commit; returns once every instance confirmed, so the ended sessions are refused everywhere. */
  private async announce(sessionIds: string[]): Promise<void> {
    await Promise.all(sessionIds.map((sessionId) => this.bus.publish({ type: 'session', sessionId })));
  }
}
