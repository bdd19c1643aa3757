import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/**
 * The sso_email_domain table's proof side (this folder's): each company's claim on a domain, its challenge and
 * when it was proven. Several companies may claim a domain nobody has proven; a proven one is one company's.
 */

export interface DomainClaim {
  domain: string;
  /** The value to publish as a TXT record at {@link challengeName}. */
  challenge: string;
  verified: boolean;
}

/** Where a company publishes its challenge for `domain`. */
export const challengeName = (domain: string) => `_staff-auth-challenge.${domain}`;

/** The value a company publishes at `_staff-auth-challenge.<domain>` to prove it holds the domain. */
export function newDomainChallenge(): string {
  return `staff-auth-domain-verification=${randomBytes(18).toString('base64url')}`;
}

/** The company's claims, by domain name. */
export async function claimsOf(manager: EntityManager, companyId: number): Promise<DomainClaim[]> {
  const rows = await manager.query<Array<{ domain: string; challenge: string; verified: boolean }>>(
    `SELECT domain, challenge, verified_at IS NOT NULL AS verified FROM sso_email_domain
      WHERE company_id = $1 ORDER BY domain`,
    [companyId],
  );
  return rows.map((row) => ({ domain: row.domain, challenge: row.challenge, verified: row.verified }));
}

/** The domains among `domains` that another company has proven (a claim nobody proved blocks nobody). */
export async function domainsTakenElsewhere(
  manager: EntityManager,
  companyId: number,
  domains: string[],
): Promise<string[]> {
  const rows = await manager.query<Array<{ domain: string }>>(
    `SELECT domain FROM sso_email_domain
      WHERE domain = ANY($1::varchar[]) AND company_id <> $2 AND verified_at IS NOT NULL`,
    [domains, companyId],
  );
  return rows.map((row) => row.domain);
}

/**
 * Marks the company's claim on `domain` proven and drops the other companies' unproven claims on it: the first
 * company to prove a domain keeps it. Answers the companies whose claim was dropped, or null when the company
 * no longer claims it unproven (another company proved it first and dropped this claim). Another company proving
 * it in the same moment loses on the unique index of proven domains (a unique violation the caller answers).
 */
export async function markProven(
  manager: EntityManager,
  companyId: number,
  domain: string,
  now: Date,
): Promise<number[] | null> {
  const marked = await manager.query<unknown[]>(
    `WITH marked AS (
       UPDATE sso_email_domain SET verified_at = $3
        WHERE company_id = $1 AND domain = $2 AND verified_at IS NULL RETURNING domain)
     SELECT domain FROM marked`,
    [companyId, domain, now],
  );
  if (marked.length === 0) return null;
  const dropped = await manager.query<Array<{ company_id: number }>>(
    `WITH dropped AS (
       DELETE FROM sso_email_domain WHERE domain = $2 AND company_id <> $1 AND verified_at IS NULL
       RETURNING company_id)
     SELECT company_id FROM dropped`,
    [companyId, domain],
  );
  return dropped.map((row) => row.company_id);
}
