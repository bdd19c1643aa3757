import type { CredentialPolicy } from '../../access/rules/principal';
import { allowlistTest } from './ip-allowlist';

/**
 * The company_policy table as other folders' single statements may reach it: a credential look-up reads its
 * company's policy in the same statement, so the request's checks (address, idle time) cost no query of their
 * own. Its name is written only in src/accounts/company-policy/.
 */

/** A column `company_policy` (JSON, null for a company on the defaults) of the company whose id is `idColumn`. */
export function companyPolicyColumn(idColumn: string): string {
  return `(SELECT to_jsonb(cp) FROM company_policy cp WHERE cp.company_id = ${idColumn}) AS company_policy`;
}

/** What {@link companyPolicyColumn} reads (the row as JSON). */
export interface CompanyPolicyJson {
  mfa_required: boolean;
  idle_timeout_minutes: number | null;
  ip_allowlist: string[];
}

/** What a credential carries of its company's policy; `undefined` when nothing in it applies to a request. */
export function credentialPolicyOf(json: CompanyPolicyJson | string | null | undefined): CredentialPolicy | undefined {
  if (json === null || json === undefined) return undefined;
  const row = typeof json === 'string' ? (JSON.parse(json) as CompanyPolicyJson) : json;
  const allows = allowlistTest(row.ip_allowlist ?? []);
  const idleMs = row.idle_timeout_minutes === null ? null : row.idle_timeout_minutes * 60_000;
  if (allows === null && idleMs === null && !row.mfa_required) return undefined;
  return { allows, idleMs, mfaRequired: row.mfa_required };
}
