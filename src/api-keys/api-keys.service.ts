import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { sha256Hex } from '../auth/credentials/sha256';
import type { Principal } from '../auth/credentials/principal';
import { RevocationBus } from '../auth/credentials/revocation-bus';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
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
  ) {}

  /** The secret is returned here once and stored only as its SHA-256. */
  async create(principal: Principal, input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
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
    await this.dataSource.getRepository(ApiKey).insert(key);
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
  async revoke(principal: Principal, id: string): Promise<void> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(ApiKey)
      .set({ revokedAt: this.clock.now() })
      .where('id = :id AND company_id = :companyId AND revoked_at IS NULL', { id, companyId: principal.companyId })
      .execute();
    if (result.affected !== 1) throw ApiError.notFound('No such API key.');
    await this.bus.publish({ type: 'api_key', keyId: id });
  }
}
