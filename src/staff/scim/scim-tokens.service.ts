import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { sha256Hex } from '../../identity/auth/credentials/sha256';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { type Page, type PageQueryDto, toPage } from '../../platform/common/http/pagination';
import { activePermissionsOf } from '../../accounts/membership/membership-grants';
import { type Grant, intersectGrants, normalizeGrants } from '../../access/permissions/permission';
import type { CreatedScimTokenDto, ScimTokenDto } from './dto/scim-token.dto';
import { ScimToken } from './scim-token.entity';

/** The prefix of every SCIM token: recognisable in a leaked log or a secret scanner, never a JWT or an API key. */
export const SCIM_TOKEN_PREFIX = 'scim_';

/**
 * What a SCIM request acts as: the company the token was issued for, with what the token holds now (what its
 * creator held when making it, and still holds).
 */
export interface ScimCaller {
  tokenId: string;
  companyId: number;
  permissions: Grant[];
}

/** How often `last_used_at` is written at most per token (the list shows it to the minute, as for API keys). */
const USE_RECORD_INTERVAL_MS = 60_000;

/** SCIM bearer tokens of one company: issued by an employee holding `*`, stored as their SHA-256. */
@Injectable()
export class ScimTokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  async create(principal: Principal, name: string | undefined, client: ClientInfo): Promise<CreatedScimTokenDto> {
    const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const row: ScimToken = {
      id: randomUUID(),
      companyId: principal.companyId,
      name: name?.trim() || 'SCIM token',
      tokenHash: sha256Hex(token),
      createdBy: principal.employeeId,
      permissions: normalizeGrants(principal.permissions),
      createdAt: this.clock.now(),
      lastUsedAt: null,
    };
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(ScimToken, row);
      // The contract's event types have none of their own for SCIM tokens: a token is an API credential of the
      // company, recorded as one, marked `scim`.
      await this.audit.record(manager, {
        type: 'apikey.created',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'api_key', id: row.id, email: null },
        details: { name: row.name, scim: true },
      });
    });
    return { id: row.id, token };
  }

  async list(companyId: number, query: PageQueryDto): Promise<Page<ScimTokenDto>> {
    const [rows, total] = await this.dataSource.getRepository(ScimToken).findAndCount({
      where: { companyId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: query.offset,
      take: query.per_page,
    });
    const data = rows.map((row) => ({
      id: row.id,
      name: row.name,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    }));
    return toPage(data, total, query);
  }

  /** Deletes a token of the caller's company: the next SCIM request with it is refused (each one is looked up). */
  async remove(principal: Principal, id: string, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const deleted = await manager.query<Array<{ name: string }>>(
        `WITH deleted AS (DELETE FROM scim_token WHERE id = $1 AND company_id = $2 RETURNING name)
         SELECT name FROM deleted`,
        [id, principal.companyId],
      );
      if (deleted.length === 0) throw ApiError.notFound('No such SCIM token.');
      await this.audit.record(manager, {
        type: 'apikey.revoked',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        subject: { kind: 'api_key', id, email: null },
        details: { name: deleted[0].name, scim: true },
      });
    });
  }

  /**
   * The company a presented token belongs to and what it may do now, 'orphaned' when its creator no longer is an
   * active member of that company (a token holds no more than its creator does: nothing then), or null. Looked
   * up on every request, not cached: SCIM traffic is light, and a deleted token or a creator's lost permission
   * then counts at once on every instance without a notice.
   */
  async authenticate(token: string): Promise<ScimCaller | 'orphaned' | null> {
    if (!token.startsWith(SCIM_TOKEN_PREFIX) || token.length > 200) return null;
    const [row] = await this.dataSource.query<
      Array<{
        id: string;
        company_id: number;
        created_by: number | null;
        last_used_at: Date | null;
        permissions: Grant[];
      }>
    >(
      'SELECT t.id, t.company_id, t.created_by, t.last_used_at, t.permissions FROM scim_token t WHERE t.token_hash = $1',
      [sha256Hex(token)],
    );
    if (!row) return null;
    const creatorPermissions = await activePermissionsOf(this.dataSource.manager, row.created_by, row.company_id);
    if (creatorPermissions === null) return 'orphaned';
    const now = this.clock.now();
    if (row.last_used_at === null || now.getTime() - new Date(row.last_used_at).getTime() >= USE_RECORD_INTERVAL_MS) {
      await this.dataSource.query('UPDATE scim_token SET last_used_at = $2 WHERE id = $1', [row.id, now]);
    }
    return {
      tokenId: row.id,
      companyId: Number(row.company_id),
      permissions: intersectGrants(row.permissions, creatorPermissions),
    };
  }
}
