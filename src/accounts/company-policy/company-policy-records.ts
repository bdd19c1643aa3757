import type { EntityManager } from 'typeorm';
import { CompanyPolicy } from './company-policy.entity';

/** A company's policy as the API shows it (docs/contract.md "Company policies and roles"). */
export interface PolicyView {
  mfa_required: boolean;
  session_days: number;
  idle_timeout_minutes: number | null;
  ip_allowlist: string[];
}

/** The source's rules: no second factor required, 14-day tokens, no idle time-out, any address. */
export const DEFAULT_POLICY: Readonly<PolicyView> = Object.freeze({
  mfa_required: false,
  session_days: 14,
  idle_timeout_minutes: null,
  ip_allowlist: [],
});

/**
 * What other folders read or change in the company_policy table, each inside the caller's transaction. Single
 * statements that read a credential with its company's policy join through company-policy-sql.ts.
 */
export async function policyOf(manager: EntityManager, companyId: number): Promise<PolicyView> {
  const row = await manager.findOneBy(CompanyPolicy, { companyId });
  if (!row) return { ...DEFAULT_POLICY, ip_allowlist: [] };
  return {
    mfa_required: row.mfaRequired,
    session_days: row.sessionDays,
    idle_timeout_minutes: row.idleTimeoutMinutes,
    ip_allowlist: row.ipAllowlist,
  };
}

/** Saves the whole policy (the caller validated it). */
export async function savePolicy(
  manager: EntityManager,
  companyId: number,
  policy: PolicyView,
  now: Date,
): Promise<void> {
  await manager.query(
    `INSERT INTO company_policy (company_id, mfa_required, session_days, idle_timeout_minutes, ip_allowlist, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (company_id) DO UPDATE SET mfa_required = $2, session_days = $3, idle_timeout_minutes = $4,
       ip_allowlist = $5, updated_at = $6`,
    [companyId, policy.mfa_required, policy.session_days, policy.idle_timeout_minutes, policy.ip_allowlist, now],
  );
}

/** Back to the defaults (the operator's `policy:reset`); whether there was anything to reset. */
export async function resetPolicy(manager: EntityManager, companyId: number): Promise<boolean> {
  const result = await manager.delete(CompanyPolicy, { companyId });
  return (result.affected ?? 0) > 0;
}
