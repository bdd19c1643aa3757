import type { EntityManager } from 'typeorm';
import type { SealedColumn } from '../../platform/keys/sealed-columns';
import { type ResealBatch, resealRows } from '../../platform/common/sealing/reseal-rows';
import type { Grant } from '../../access/permissions/permission';
import { newDomainChallenge } from './sso-domains';

/** The sso_connection and sso_email_domain tables (this folder's), each call inside the caller's transaction. */

export interface SsoConnection {
  companyId: number;
  issuer: string;
  clientId: string;
  /** Sealed (SsoSecretBox); opened only to call the provider. */
  sealedSecret: string;
  /** Every listed domain, proven or not (what PUT saves); {@link hasProvenDomain} says which speak for people. */
  emailDomains: string[];
  enforced: boolean;
  jit: { enabled: boolean; permissions: Grant[] };
}

interface Row {
  company_id: number;
  issuer: string;
  client_id: string;
  client_secret: string;
  enforced: boolean;
  jit_enabled: boolean;
  jit_permissions: Grant[];
  domains: string[] | null;
}

const SELECT = `SELECT c.company_id, c.issuer, c.client_id, c.client_secret, c.enforced, c.jit_enabled,
         c.jit_permissions,
         (SELECT array_agg(d.domain ORDER BY d.domain) FROM sso_email_domain d WHERE d.company_id = c.company_id)
           AS domains
    FROM sso_connection c`;

const toConnection = (row: Row): SsoConnection => ({
  companyId: row.company_id,
  issuer: row.issuer,
  clientId: row.client_id,
  sealedSecret: row.client_secret,
  emailDomains: row.domains ?? [],
  enforced: row.enforced,
  jit: { enabled: row.jit_enabled, permissions: row.jit_permissions },
});

export async function connectionOf(manager: EntityManager, companyId: number): Promise<SsoConnection | null> {
  const [row] = await manager.query<Row[]>(`${SELECT} WHERE c.company_id = $1`, [companyId]);
  return row ? toConnection(row) : null;
}

/** The connection of the company that has proven `domain`, if any (a listed but unproven domain finds none). */
export async function connectionForDomain(manager: EntityManager, domain: string): Promise<SsoConnection | null> {
  const [row] = await manager.query<Row[]>(
    `${SELECT} WHERE c.company_id = (SELECT company_id FROM sso_email_domain
                                       WHERE domain = $1 AND verified_at IS NOT NULL)`,
    [domain],
  );
  return row ? toConnection(row) : null;
}

/** Connections a provider's logout token may speak for: same issuer and client. */
export async function connectionsOfClient(
  manager: EntityManager,
  issuer: string,
  clientId: string,
): Promise<SsoConnection[]> {
  const rows = await manager.query<Row[]>(`${SELECT} WHERE c.issuer = $1 AND c.client_id = $2`, [issuer, clientId]);
  return rows.map(toConnection);
}

/** What a login into the company must satisfy: one small read on every password login and switch. */
export async function signInRuleOf(
  manager: EntityManager,
  companyId: number,
): Promise<{ issuer: string; enforced: boolean } | null> {
  const [row] = await manager.query<Array<{ issuer: string; enforced: boolean }>>(
    'SELECT issuer, enforced FROM sso_connection WHERE company_id = $1',
    [companyId],
  );
  return row ?? null;
}

export async function enforcedCompanies(manager: EntityManager, companyIds: number[]): Promise<number[]> {
  if (companyIds.length === 0) return [];
  const rows = await manager.query<Array<{ company_id: number }>>(
    'SELECT company_id FROM sso_connection WHERE enforced AND company_id = ANY($1::int[])',
    [companyIds],
  );
  return rows.map((row) => row.company_id);
}

/**
 * Creates or replaces the company's connection and its domains. A domain listed again keeps its challenge and
 * its proof; a new one gets a fresh challenge, unproven; one no longer listed is dropped.
 */
export async function saveConnection(
  manager: EntityManager,
  connection: SsoConnection,
  now: Date,
  editorId: number | null,
): Promise<void> {
  await manager.query(
    `INSERT INTO sso_connection (company_id, issuer, client_id, client_secret, enforced, jit_enabled, jit_permissions,
                                 created_at, updated_at, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
     ON CONFLICT (company_id) DO UPDATE SET issuer = $2, client_id = $3, client_secret = $4, enforced = $5,
       jit_enabled = $6, jit_permissions = $7, updated_at = $8, updated_by = $9`,
    [
      connection.companyId,
      connection.issuer,
      connection.clientId,
      connection.sealedSecret,
      connection.enforced,
      connection.jit.enabled,
      connection.jit.permissions,
      now,
      editorId,
    ],
  );
  await manager.query('DELETE FROM sso_email_domain WHERE company_id = $1 AND NOT (domain = ANY($2::varchar[]))', [
    connection.companyId,
    connection.emailDomains,
  ]);
  for (const domain of connection.emailDomains) {
    await manager.query(
      `INSERT INTO sso_email_domain (company_id, domain, challenge) VALUES ($1, $2, $3)
       ON CONFLICT (company_id, domain) DO NOTHING`,
      [connection.companyId, domain, newDomainChallenge()],
    );
  }
}

/** The company that has proven `domain`, if any: the only one whose connection speaks for its e-mails. */
export async function verifiedOwnerOf(manager: EntityManager, domain: string): Promise<number | null> {
  const [row] = await manager.query<Array<{ company_id: number }>>(
    'SELECT company_id FROM sso_email_domain WHERE domain = $1 AND verified_at IS NOT NULL',
    [domain],
  );
  return row?.company_id ?? null;
}

/**
 * Whether company `companyId` has proven the domain of `email` (docs/contract.md "Whose people a company may
 * speak for"): the only domains whose people its provider, JIT and SCIM may speak for.
 */
export async function hasProvenDomain(manager: EntityManager, companyId: number, email: string): Promise<boolean> {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  if (at === -1 || domain === '') return false;
  const rows = await manager.query<unknown[]>(
    'SELECT 1 FROM sso_email_domain WHERE company_id = $1 AND domain = $2 AND verified_at IS NOT NULL',
    [companyId, domain],
  );
  return rows.length > 0;
}

/** Who last saved the company's connection (null: unknown, saved before editors were kept, or gone). */
export async function lastEditorOf(manager: EntityManager, companyId: number): Promise<number | null> {
  const [row] = await manager.query<Array<{ updated_by: number | null }>>(
    'SELECT updated_by FROM sso_connection WHERE company_id = $1',
    [companyId],
  );
  return row?.updated_by ?? null;
}

export async function deleteConnection(manager: EntityManager, companyId: number): Promise<boolean> {
  const deleted = await manager.query<Array<{ company_id: number }>>(
    `WITH deleted AS (DELETE FROM sso_connection WHERE company_id = $1 RETURNING company_id)
     SELECT company_id FROM deleted`,
    [companyId],
  );
  return deleted.length === 1;
}

/**
 * One batch of re-encryption of the stored client secrets (src/platform/keys/sealed-columns.ts), as employee-totp.ts
 * does for TOTP secrets: the next `limit` connections after company `afterId` not sealed with `currentPrefix`,
 * locked (others' locked rows skipped), each write checking the value is still the one read.
 */
export async function resealSsoClientSecrets(
  manager: EntityManager,
  currentPrefix: string,
  afterId: number,
  limit: number,
  reseal: (sealed: string) => string | null,
): Promise<ResealBatch> {
  const rows = await manager.query<Array<{ company_id: number; client_secret: string }>>(
    `SELECT company_id, client_secret FROM sso_connection
      WHERE company_id > $1 AND left(client_secret, length($2)) <> $2
      ORDER BY company_id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [afterId, currentPrefix, limit],
  );
  return resealRows(rows, { id: (row) => row.company_id, sealed: (row) => row.client_secret }, reseal, (row, value) =>
    manager.query('UPDATE sso_connection SET client_secret = $3 WHERE company_id = $1 AND client_secret = $2', [
      row.company_id,
      row.client_secret,
      value,
    ]),
  );
}

/** The client secrets, which ENCRYPTION_KEY re-encrypts at start (SsoConnectionService is marked with it). */
export const SSO_CLIENT_SECRETS: SealedColumn = {
  name: 'sso_connection.client_secret',
  purpose: 'sso_client_secret',
  resealBatch: resealSsoClientSecrets,
};
