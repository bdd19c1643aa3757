import { type EntityManager, IsNull } from 'typeorm';
import type { OverrideMode, OverrideRule } from './override-table';
import { RateLimitOverride } from './rate-limit-override.entity';

/** What other folders (the operator's CLI) read and change in rate_limit_override, in the caller's transaction. */

export interface NewOverride {
  companyId: number;
  apiKeyId: string | null;
  method: string;
  group: string;
  limit: number;
  mode: OverrideMode;
  expiresAt: Date | null;
}

/** The CLI's and the audit trail's view of one override. */
export interface OverrideView {
  id: number;
  company_id: number;
  api_key_id: string | null;
  method: string;
  group: string;
  limit: number;
  mode: OverrideMode;
  expires_at: string | null;
  created_at: string;
}

export const overrideView = (row: RateLimitOverride): OverrideView => ({
  id: row.id,
  company_id: row.companyId,
  api_key_id: row.apiKeyId,
  method: row.method,
  group: row.group,
  limit: row.capacity,
  mode: row.mode,
  expires_at: row.expiresAt === null ? null : new Date(row.expiresAt).toISOString(),
  created_at: new Date(row.createdAt).toISOString(),
});

/**
 * Stores an override; one already set for the same company, API key, method and group is replaced (returned as
 * `replaced`), so a scope has one override at a time and setting it again is how it is changed.
 */
export async function putOverride(
  manager: EntityManager,
  input: NewOverride,
  now: Date,
): Promise<{ created: RateLimitOverride; replaced: RateLimitOverride | null }> {
  const repository = manager.getRepository(RateLimitOverride);
  const replaced = await repository.findOneBy({
    companyId: input.companyId,
    apiKeyId: input.apiKeyId ?? IsNull(),
    method: input.method,
    group: input.group,
  });
  if (replaced) await repository.delete({ id: replaced.id });
  const created = await repository.save(
    repository.create({
      companyId: input.companyId,
      apiKeyId: input.apiKeyId,
      method: input.method,
      group: input.group,
      capacity: input.limit,
      mode: input.mode,
      expiresAt: input.expiresAt,
      createdAt: now,
    }),
  );
  return { created, replaced };
}

export async function deleteOverride(manager: EntityManager, id: number): Promise<RateLimitOverride | null> {
  const repository = manager.getRepository(RateLimitOverride);
  const row = await repository.findOneBy({ id });
  if (row) await repository.delete({ id });
  return row;
}

/** Every override, or a company's, oldest first (expired ones included: the operator sees what is stored). */
export function listOverrides(manager: EntityManager, companyId?: number): Promise<RateLimitOverride[]> {
  return manager.getRepository(RateLimitOverride).find({
    where: companyId === undefined ? {} : { companyId },
    order: { id: 'ASC' },
  });
}

/** The overrides not yet expired at `now`, as the rate limiter holds them. */
export async function liveOverrides(manager: EntityManager, now: Date): Promise<OverrideRule[]> {
  const rows = await manager
    .getRepository(RateLimitOverride)
    .createQueryBuilder('o')
    .where('o.expires_at IS NULL OR o.expires_at > :now', { now })
    .getMany();
  return rows.map((row) => ({
    id: row.id,
    companyId: row.companyId,
    apiKeyId: row.apiKeyId,
    method: row.method,
    group: row.group,
    limit: row.capacity,
    mode: row.mode,
    expiresAtMs: row.expiresAt === null ? null : new Date(row.expiresAt).getTime(),
  }));
}
