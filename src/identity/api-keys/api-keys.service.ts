import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { emailsOf, withEmails } from '../../accounts/employee/employee-records';
import { activePermissionsOf } from '../../accounts/membership/membership-grants';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { escapeLike, type Page, toPage } from '../../platform/common/http/pagination';
import { grantableBy } from '../../access/permissions/grantable';
import { coversAll, type Grant } from '../../access/permissions/permission';
import { ApiKey } from './api-key.entity';
import { issueApiKey } from './api-key-records';
import type { ApiKeyDto, ApiKeyListQueryDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

/** API keys of one company: issued by an employee, bound to that employee and company. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  /** The secret is returned here once and stored only as its SHA-256. */
  async create(principal: Principal, input: CreateApiKeyDto, client: ClientInfo): Promise<CreatedApiKeyDto> {
    const permissions = grantableBy(
      principal,
      input.permissions,
      'An API key can hold only permissions its owner holds.',
    );
    const name = input.name.trim();
    return this.dataSource.transaction(async (manager) => {
      const key = await issueApiKey(manager, {
        employeeId: principal.employeeId,
        companyId: principal.companyId,
        name,
        permissions,
        now: this.clock.now(),
      });
      await this.audit.record(manager, {
        type: 'apikey.created',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'api_key', id: key.id, email: principal.employee.email },
        // The prefix (the part before `:`) is public; the secret and its digest never leave issueApiKey.
        details: { name, prefix: key.keyId, permissions },
      });
      return { id: key.id, name, permissions, api_key: key.apiKey };
    });
  }

  async list(companyId: number, query: ApiKeyListQueryDto): Promise<Page<ApiKeyDto>> {
    const builder = this.dataSource
      .getRepository(ApiKey)
      .createQueryBuilder('key')
      .select([
        'key.id',
        'key.keyId',
        'key.name',
        'key.permissions',
        'key.employeeId',
        'key.createdAt',
        'key.lastUsedAt',
      ])
      .where('key.companyId = :companyId AND key.revokedAt IS NULL', { companyId });
    if (query.prefix) builder.andWhere('key.keyId LIKE :prefix', { prefix: `${escapeLike(query.prefix)}%` });
    if (query.owner) builder.andWhere('key.employeeId = :owner', { owner: query.owner });
    const total = await builder.getCount();
    const rows = await builder
      .orderBy('key.createdAt', 'ASC')
      .addOrderBy('key.id', 'ASC')
      .offset(query.offset)
      .limit(query.per_page)
      .getRawMany<Record<string, unknown>>();
    // The owners' e-mails from their owner, the accounts area (an owner's keys go with the account).
    const emails = await emailsOf(
      this.dataSource.manager,
      rows.map((row) => row.key_employee_id as number),
    );
    const data = rows.map((row) => ({
      id: row.key_id as string,
      name: row.key_name as string,
      prefix: row.key_key_id as string,
      owner: { id: row.key_employee_id as number, email: emails.get(row.key_employee_id as number) ?? '' },
      permissions: row.key_permissions as Grant[],
      created_at: new Date(row.key_created_at as string).toISOString(),
      last_used_at: row.key_last_used_at ? new Date(row.key_last_used_at as string).toISOString() : null,
    }));
    return toPage(data, total, query);
  }

  /** Revokes a key of the caller's company; keys of other companies, and revoked ones, are "not found". */
  async revoke(principal: Principal, id: string, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // The owner's permissions now, not the key's: revoking must not be a way to act against someone who
      // holds more. The row lock keeps a concurrent permission change from slipping between check and update.
      const [key] = await manager.query<Array<{ employee_id: number }>>(
        'SELECT employee_id FROM api_key WHERE id = $1 AND company_id = $2 AND revoked_at IS NULL FOR UPDATE',
        [id, principal.companyId],
      );
      if (!key) throw ApiError.notFound('No such API key.');
      const ownerPermissions = await activePermissionsOf(manager, key.employee_id, principal.companyId);
      if (!coversAll(principal.permissions, ownerPermissions ?? [])) {
        throw new ApiError(
          ErrorCode.PermissionDenied,
          HttpStatus.FORBIDDEN,
          'The owner of this API key holds permissions you do not; only someone holding them all can revoke it.',
        );
      }
      const revoked = await withEmails(
        manager,
        await manager.query<Array<{ name: string; key_id: string; employee_id: number }>>(
          `WITH revoked AS (
             UPDATE api_key SET revoked_at = $3 WHERE id = $1 AND company_id = $2 AND revoked_at IS NULL
             RETURNING name, key_id, employee_id)
           SELECT name, key_id, employee_id FROM revoked`,
          [id, principal.companyId, this.clock.now()],
        ),
      );
      if (revoked.length !== 1) throw ApiError.notFound('No such API key.');
      await this.audit.record(manager, {
        type: 'apikey.revoked',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'api_key', id, email: revoked[0].email },
        details: { name: revoked[0].name, prefix: revoked[0].key_id },
      });
    });
    await this.bus.publish({ type: 'api_key', keyId: id });
  }
}
