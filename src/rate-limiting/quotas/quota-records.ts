import { type EntityManager, IsNull } from 'typeorm';
import { type QuotaPeriod, RateLimitQuota } from './rate-limit-quota.entity';

/** What other folders (the operator's CLI) read and change in rate_limit_quota, in the caller's transaction. */

/** The largest quota the CLI accepts (the column's check). */
export const MAX_QUOTA_LIMIT = 1_000_000_000;

export interface NewQuota {
  companyId: number;
  apiKeyId: string | null;
  per: QuotaPeriod;
  limit: number;
}

/** One quota as every instance holds it in memory. */
export interface QuotaRule {
  id: number;
  companyId: number;
  apiKeyId: string | null;
  per: QuotaPeriod;
  limit: number;
}

/** The CLI's and the audit trail's view of one quota. */
export interface QuotaView {
  id: number;
  company_id: number;
  api_key_id: string | null;
  per: QuotaPeriod;
  limit: number;
  created_at: string;
}

export const quotaView = (row: RateLimitQuota): QuotaView => ({
  id: row.id,
  company_id: row.companyId,
  api_key_id: row.apiKeyId,
  per: row.per,
  limit: row.limit,
  created_at: new Date(row.createdAt).toISOString(),
});

/**
 * Stores a quota; one already set for the same company, API key and period is replaced (returned as
 * `replaced`). The count of the running window is kept: it belongs to the scope and period, not to the row.
 */
export async function putQuota(
  manager: EntityManager,
  input: NewQuota,
  now: Date,
): Promise<{ created: RateLimitQuota; replaced: RateLimitQuota | null }> {
  const repository = manager.getRepository(RateLimitQuota);
  const replaced = await repository.findOneBy({
    companyId: input.companyId,
    apiKeyId: input.apiKeyId ?? IsNull(),
    per: input.per,
  });
  if (replaced) await repository.delete({ id: replaced.id });
  const created = await repository.save(repository.create({ ...input, createdAt: now }));
  return { created, replaced };
}

export async function deleteQuota(manager: EntityManager, id: number): Promise<RateLimitQuota | null> {
  const repository = manager.getRepository(RateLimitQuota);
  const row = await repository.findOneBy({ id });
  if (row) await repository.delete({ id });
  return row;
}

/** Every quota, or a company's, oldest first. */
export function listQuotas(manager: EntityManager, companyId?: number): Promise<RateLimitQuota[]> {
  return manager.getRepository(RateLimitQuota).find({
    where: companyId === undefined ? {} : { companyId },
    order: { id: 'ASC' },
  });
}

/** Every quota, as the rate limiter holds them. */
export async function allQuotaRules(manager: EntityManager): Promise<QuotaRule[]> {
  const rows = await manager.getRepository(RateLimitQuota).find({ order: { id: 'ASC' } });
  return rows.map(({ id, companyId, apiKeyId, per, limit }) => ({ id, companyId, apiKeyId, per, limit }));
}
