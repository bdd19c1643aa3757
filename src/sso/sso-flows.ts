import type { EntityManager } from 'typeorm';

/**
 * The sso_flow and sso_code tables (this folder's). Both are single use: taking one is a conditional UPDATE, so
 * of two instances finishing the same flow (or exchanging the same code) exactly one wins. Stored as SHA-256.
 */

export interface SsoFlow {
  companyId: number;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  redirectUri: string;
}

export interface SsoCodeGrant {
  companyId: number;
  employeeId: number;
  issuer: string;
  sub: string;
  sid: string | null;
}

export async function insertFlow(
  manager: EntityManager,
  stateHash: string,
  flow: SsoFlow,
  expiresAt: Date,
): Promise<void> {
  await manager.query(
    `INSERT INTO sso_flow (state_hash, company_id, nonce, code_verifier, return_to, redirect_uri, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [stateHash, flow.companyId, flow.nonce, flow.codeVerifier, flow.returnTo, flow.redirectUri, expiresAt],
  );
}

/** The flow of a state, spent now; null when unknown, used or expired. */
export async function takeFlow(manager: EntityManager, stateHash: string, now: Date): Promise<SsoFlow | null> {
  const [row] = await manager.query<
    Array<{ company_id: number; nonce: string; code_verifier: string; return_to: string; redirect_uri: string }>
  >(
    `WITH taken AS (
       UPDATE sso_flow SET used_at = $2 WHERE state_hash = $1 AND used_at IS NULL AND expires_at > $2
       RETURNING company_id, nonce, code_verifier, return_to, redirect_uri)
     SELECT * FROM taken`,
    [stateHash, now],
  );
  if (!row) return null;
  return {
    companyId: row.company_id,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    returnTo: row.return_to,
    redirectUri: row.redirect_uri,
  };
}

/** The return address of a state, spent or not: where to send the browser when the flow cannot finish. */
export async function returnToOf(manager: EntityManager, stateHash: string): Promise<string | null> {
  const [row] = await manager.query<Array<{ return_to: string }>>(
    'SELECT return_to FROM sso_flow WHERE state_hash = $1',
    [stateHash],
  );
  return row?.return_to ?? null;
}

export async function insertCode(
  manager: EntityManager,
  codeHash: string,
  grant: SsoCodeGrant,
  expiresAt: Date,
): Promise<void> {
  await manager.query(
    `INSERT INTO sso_code (code_hash, company_id, employee_id, issuer, sub, sid, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [codeHash, grant.companyId, grant.employeeId, grant.issuer, grant.sub, grant.sid, expiresAt],
  );
}

export async function takeCode(manager: EntityManager, codeHash: string, now: Date): Promise<SsoCodeGrant | null> {
  const [row] = await manager.query<
    Array<{ company_id: number; employee_id: number; issuer: string; sub: string; sid: string | null }>
  >(
    `WITH taken AS (
       UPDATE sso_code SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2
       RETURNING company_id, employee_id, issuer, sub, sid)
     SELECT * FROM taken`,
    [codeHash, now],
  );
  if (!row) return null;
  return { companyId: row.company_id, employeeId: row.employee_id, issuer: row.issuer, sub: row.sub, sid: row.sid };
}

/** Spent and expired rows are kept a day for investigation, then dropped on the next start of a flow. */
export async function purgeOld(manager: EntityManager, before: Date): Promise<void> {
  await manager.query('DELETE FROM sso_flow WHERE expires_at < $1', [before]);
  await manager.query('DELETE FROM sso_code WHERE expires_at < $1', [before]);
}
