import type { EntityManager } from 'typeorm';

/**
 * The sso_flow and sso_code tables (this folder's). Both are single use: taking one is a conditional UPDATE, so
 * of two instances finishing the same flow (or exchanging the same code) exactly one wins. Stored as SHA-256,
 * each with the SHA-256 of the binding cookie of the browser that started it (browser-binding.ts): taken only by
 * a request of that browser, and left as it was by any other.
 */

export interface SsoFlow {
  companyId: number;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  redirectUri: string;
  browserHash: string;
}

export interface SsoCodeGrant {
  companyId: number;
  employeeId: number;
  issuer: string;
  sub: string;
  sid: string | null;
  browserHash: string;
}

export async function insertFlow(
  manager: EntityManager,
  stateHash: string,
  flow: SsoFlow,
  expiresAt: Date,
): Promise<void> {
  await manager.query(
    `INSERT INTO sso_flow (state_hash, company_id, nonce, code_verifier, return_to, redirect_uri, expires_at,
                           browser_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      stateHash,
      flow.companyId,
      flow.nonce,
      flow.codeVerifier,
      flow.returnTo,
      flow.redirectUri,
      expiresAt,
      flow.browserHash,
    ],
  );
}

/** The flow of a state, spent now by the browser that started it; null when unknown, used, expired or not its. */
export async function takeFlow(
  manager: EntityManager,
  stateHash: string,
  browserHash: string,
  now: Date,
): Promise<SsoFlow | null> {
  const [row] = await manager.query<
    Array<{ company_id: number; nonce: string; code_verifier: string; return_to: string; redirect_uri: string }>
  >(
    `WITH taken AS (
       UPDATE sso_flow SET used_at = $2
        WHERE state_hash = $1 AND browser_hash = $3 AND used_at IS NULL AND expires_at > $2
       RETURNING company_id, nonce, code_verifier, return_to, redirect_uri)
     SELECT * FROM taken`,
    [stateHash, now, browserHash],
  );
  if (!row) return null;
  return {
    companyId: row.company_id,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    returnTo: row.return_to,
    redirectUri: row.redirect_uri,
    browserHash,
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
    `INSERT INTO sso_code (code_hash, company_id, employee_id, issuer, sub, sid, expires_at, browser_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [codeHash, grant.companyId, grant.employeeId, grant.issuer, grant.sub, grant.sid, expiresAt, grant.browserHash],
  );
}

/** The grant of a one-time code, spent now by the browser it was made for; null otherwise. */
export async function takeCode(
  manager: EntityManager,
  codeHash: string,
  browserHash: string,
  now: Date,
): Promise<SsoCodeGrant | null> {
  const [row] = await manager.query<
    Array<{ company_id: number; employee_id: number; issuer: string; sub: string; sid: string | null }>
  >(
    `WITH taken AS (
       UPDATE sso_code SET used_at = $2
        WHERE code_hash = $1 AND browser_hash = $3 AND used_at IS NULL AND expires_at > $2
       RETURNING company_id, employee_id, issuer, sub, sid)
     SELECT * FROM taken`,
    [codeHash, now, browserHash],
  );
  if (!row) return null;
  const grant = { companyId: row.company_id, employeeId: row.employee_id, issuer: row.issuer, sub: row.sub };
  return { ...grant, sid: row.sid, browserHash };
}

/** Spent and expired rows are kept a day for investigation, then dropped on the next start of a flow. */
export async function purgeOld(manager: EntityManager, before: Date): Promise<void> {
  await manager.query('DELETE FROM sso_flow WHERE expires_at < $1', [before]);
  await manager.query('DELETE FROM sso_code WHERE expires_at < $1', [before]);
}

/**
 * Remembers a back-channel logout token's `jti` (per issuer) until `expiresAt`, when its `iat` is too old for it
 * to be accepted anyway; false when it was seen before (a replay). Past ones are dropped on the way.
 */
export async function rememberLogoutJti(
  manager: EntityManager,
  issuer: string,
  jti: string,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  await manager.query('DELETE FROM sso_logout_jti WHERE expires_at < $1', [now]);
  const inserted = await manager.query<unknown[]>(
    `WITH inserted AS (
       INSERT INTO sso_logout_jti (issuer, jti, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (issuer, jti) DO NOTHING RETURNING jti)
     SELECT jti FROM inserted`,
    [issuer, jti, expiresAt],
  );
  return inserted.length === 1;
}
