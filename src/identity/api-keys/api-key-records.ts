import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { sha256Hex } from '../auth/credentials/sha256';
import type { Grant } from '../../access/permissions/permission';
import { ApiKey } from './api-key.entity';

/** What other folders change in the api_key table, inside the caller's transaction (its EntityManager). */

/**
 * A new key of one employee in one company: the credential `key:secret` is returned here, once; the table keeps
 * the key id and the secret's SHA-256 only. The caller has checked the permissions against the owner's.
 */
export async function issueApiKey(
  manager: EntityManager,
  key: { employeeId: number; companyId: number; name: string; permissions: Grant[]; now: Date },
): Promise<{ id: string; keyId: string; apiKey: string }> {
  const keyId = `ak_${randomBytes(12).toString('base64url')}`;
  const secret = randomBytes(32).toString('base64url');
  const row = manager.create(ApiKey, {
    id: randomUUID(),
    keyId,
    secretHash: sha256Hex(secret),
    employeeId: key.employeeId,
    companyId: key.companyId,
    name: key.name,
    permissions: key.permissions,
    createdAt: key.now,
    lastUsedAt: null,
    revokedAt: null,
  });
  await manager.insert(ApiKey, row);
  return { id: row.id, keyId, apiKey: `${keyId}:${secret}` };
}

/** Revokes every live key of an employee in one company (the employee leaves it). */
export async function revokeKeysIn(
  manager: EntityManager,
  employeeId: number,
  companyId: number,
  now: Date,
): Promise<void> {
  await manager.query(
    'UPDATE api_key SET revoked_at = $3 WHERE employee_id = $1 AND company_id = $2 AND revoked_at IS NULL',
    [employeeId, companyId, now],
  );
}

/** The company an API key (its id) belongs to, revoked or not; null when there is no such key. */
export async function companyOfKey(manager: EntityManager, id: string): Promise<number | null> {
  const rows = (await manager.query('SELECT company_id FROM api_key WHERE id = $1', [id])) as Array<{
    company_id: number;
  }>;
  return rows.length === 0 ? null : Number(rows[0].company_id);
}
