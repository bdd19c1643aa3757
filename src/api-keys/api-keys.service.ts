import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { requestContext } from '../audit/audit-actor';
import { AuditRecorder } from '../audit/audit-recorder.service';
import { sha256Hex } from '../auth/credentials/sha256';
import type { Principal } from '../auth/credentials/principal';
import { RevocationBus } from '../auth/credentials/revocation-bus';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
import type { ClientInfo } from '../common/http/client-info';
import { grantableBy } from '../permissions/grantable';
import { ApiKey } from './api-key.entity';
import type { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

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
    const keyId = `ak_${randomBytes(12).toString('base64url')}`;
    const secret = randomBytes(32).toString('base64url');
    const key = this.dataSource.getRepository(ApiKey).create({
      id: randomUUID(),
      keyId,
      secretHash: sha256Hex(secret),
      employeeId: principal.employeeId,
      companyId: principal.companyId,
      name: input.name.trim(),
      permissions,
      createdAt: this.clock.now(),
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(ApiKey, key);
      await this.audit.record(manager, {
        type: 'apikey.created',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'api_key', id: key.id, email: principal.employee.email },
        // The prefix (the part before `:`) is public; the secret and its digest never leave this method.
        details: { name: key.name, prefix: keyId, permissions },
      });
    });
    return { id: key.id, name: key.name, permissions, api_key: `${keyId}:${secret}` };
  }

  async list(companyId: number): Promise<ApiKeyDto[]> {
    const keys = await this.dataSource.getRepository(ApiKey).find({
      where: { companyId, revokedAt: IsNull() },
      order: { createdAt: 'ASC' },
    });
    return keys.map((key) => ({
      id: key.id,
      name: key.name,
      permissions: key.permissions,
      created_at: key.createdAt.toISOString(),
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /** Revokes a key of the caller's company; keys of other companies, and revoked ones, are "not found". */
  async revoke(principal: Principal, id: string, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const revoked: Array<{ name: string; key_id: string; email: string }> = await manager.query(
        `WITH revoked AS (
           UPDATE api_key SET revoked_at = $3 WHERE id = $1 AND company_id = $2 AND revoked_at IS NULL
           RETURNING name, key_id, employee_id)
         SELECT revoked.name, revoked.key_id, employee.email
           FROM revoked JOIN employee ON employee.id = revoked.employee_id`,
        [id, principal.companyId, this.clock.now()],
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
