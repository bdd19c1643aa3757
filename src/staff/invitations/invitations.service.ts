import { randomBytes, randomUUID } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { sha256Hex } from '../../identity/auth/credentials/sha256';
import type { LoginResult } from '../../identity/sessions/login-result';
import { AccountCheck } from '../../identity/auth/account-check.service';
import { LoginService } from '../../identity/sessions/login.service';
import { LoginPolicy } from '../../identity/sessions/login-policy';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { type Page, type PageQueryDto, toPage } from '../../platform/common/http/pagination';
import { EmployeeService, normalizeEmail } from '../../accounts/employee/employee.service';
import { addMembership } from '../../accounts/membership/membership-records';
import { grantableBy } from '../../access/permissions/grantable';
import { coversAll, type Grant } from '../../access/permissions/permission';
import type {
  AcceptInvitationDto,
  CreatedInvitationDto,
  CreateInvitationDto,
  InvitationDto,
} from './dto/invitation.dto';

/** docs/contract.md: an invitation code is valid 7 days, once. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

interface OpenInvitation {
  id: string;
  company_id: number;
  email: string;
  permissions: Grant[];
}

const invalid = (
  message = 'The invitation code is not valid (unknown, used, expired, revoked, or for another e-mail).',
) => new ApiError(ErrorCode.InvitationInvalid, HttpStatus.BAD_REQUEST, message);

/**
 * Invitations into a company: a code shown once (only its SHA-256 is stored), valid 7 days, once, revocable.
 * Accepting adds the membership; an existing account proves itself as at login, a new e-mail creates it.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountCheck,
    private readonly login: LoginService,
    private readonly employees: EmployeeService,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
    private readonly policy: LoginPolicy,
  ) {}

  async create(principal: Principal, input: CreateInvitationDto, client: ClientInfo): Promise<CreatedInvitationDto> {
    const permissions = grantableBy(principal, input.permissions, 'You can grant only permissions you hold yourself.');
    const email = normalizeEmail(input.email);
    const code = randomBytes(24).toString('base64url');
    const id = randomUUID();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO invitation (id, company_id, email, permissions, code_hash, created_by_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, principal.companyId, email, permissions, sha256Hex(code), principal.employeeId, now, expiresAt],
      );
      await this.audit.record(manager, {
        type: 'invitation.created',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'invitation', id, email },
        details: { permissions, expires_at: expiresAt.toISOString() },
      });
    });
    return { id, email, permissions, code, expires_at: expiresAt.toISOString() };
  }

  /** Open invitations only (not accepted, revoked or expired), newest first; never the code. */
  async list(companyId: number, query: PageQueryDto): Promise<Page<InvitationDto>> {
    const now = this.clock.now();
    const where = 'company_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2';
    const [{ total }] = await this.dataSource.query<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM invitation WHERE ${where}`,
      [companyId, now],
    );
    const rows = await this.dataSource.query<
      Array<{ id: string; email: string; permissions: Grant[]; created_at: Date; expires_at: Date }>
    >(
      `SELECT id, email, permissions, created_at, expires_at FROM invitation WHERE ${where}
        ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
      [companyId, now, query.per_page, query.offset],
    );
    const data = rows.map((row) => ({
      ...row,
      created_at: new Date(row.created_at).toISOString(),
      expires_at: new Date(row.expires_at).toISOString(),
    }));
    return toPage(data, total, query);
  }

  /** The code stops working. An invitation granting something the caller lacks is theirs to keep (403). */
  async revoke(principal: Principal, id: string, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [open] = await manager.query<OpenInvitation[]>(
        `SELECT id, company_id, email, permissions FROM invitation
          WHERE id = $1 AND company_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $3
          FOR UPDATE`,
        [id, principal.companyId, this.clock.now()],
      );
      if (!open) throw ApiError.notFound('No such open invitation.');
      if (!coversAll(principal.permissions, open.permissions)) {
        throw new ApiError(
          ErrorCode.PermissionDenied,
          HttpStatus.FORBIDDEN,
          'This invitation grants permissions you do not hold; only someone holding them all can revoke it.',
        );
      }
      await manager.query('UPDATE invitation SET revoked_at = $2 WHERE id = $1', [id, this.clock.now()]);
      await this.audit.record(manager, {
        type: 'invitation.revoked',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'invitation', id, email: open.email },
        details: { permissions: open.permissions },
      });
    });
  }

  async accept(input: AcceptInvitationDto, client: ClientInfo): Promise<LoginResult> {
    const email = normalizeEmail(input.email);
    const codeHash = sha256Hex(input.code);
    const invitation = await this.findOpen(codeHash, email);
    // A company that signs its staff in through its provider takes no password-proven newcomer either.
    await this.policy.assertPasswordLoginAllowed(invitation.company_id);
    const existing = await this.employees.findByEmail(email);
    // An existing account proves itself exactly as at login (wrong password or code: counted by the lock).
    const employee = existing
      ? await this.accounts.verifyAccount(email, input.password, client, {
          otp: input.otp,
          recovery_code: input.recovery_code,
        })
      : null;
    return this.dataSource.transaction(async (manager) => {
      // Used up here, atomically: of two acceptances at once, one wins and the other is refused.
      const taken = await manager.query<Array<{ id: string }>>(
        `WITH taken AS (
           UPDATE invitation SET accepted_at = $2
            WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING id)
         SELECT id FROM taken`,
        [invitation.id, this.clock.now()],
      );
      if (taken.length !== 1) throw invalid();
      const member =
        employee ?? (await this.employees.create({ email, password: input.password, name: input.name }, manager));
      const added = await addMembership(manager, member.id, invitation.company_id, invitation.permissions);
      if (!added) throw invalid('This account already belongs to the inviting company.');
      const actor = { kind: 'employee' as const, id: member.id, email: member.email };
      const context = { companyId: invitation.company_id, actor, ip: client.ip, userAgent: client.userAgent };
      const subject = { kind: 'employee' as const, id: member.id, email: member.email };
      await this.audit.record(manager, [
        ...(employee ? [] : [{ type: 'employee.created' as const, ...context, subject, details: {} }]),
        {
          ...context,
          type: 'invitation.accepted',
          subject: { kind: 'invitation', id: invitation.id, email },
          details: {},
        },
        { ...context, type: 'membership.added', subject, details: { permissions: invitation.permissions } },
      ]);
      return this.login.openSession(manager, member, invitation.company_id, client);
    });
  }

  private async findOpen(codeHash: string, email: string): Promise<OpenInvitation> {
    const [open] = await this.dataSource.query<OpenInvitation[]>(
      `SELECT id, company_id, email, permissions FROM invitation
        WHERE code_hash = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $3`,
      [codeHash, email, this.clock.now()],
    );
    if (!open) throw invalid();
    return open;
  }
}
