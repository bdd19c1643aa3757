import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { lockCompanyForChange } from '../../accounts/company/company-records';
import { policyOf, type PolicyView, savePolicy } from '../../accounts/company-policy/company-policy-records';
import { allowlistTest, normalizeCidr } from '../../accounts/company-policy/ip-allowlist';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError, type FieldError } from '../../platform/common/errors/api-error';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { endSessionsOutside, shortenTokensIn } from '../sessions/company-policy-gate';
import type { CompanyPolicyDto } from './dto/company-policy.dto';

/** Each field that changed, `{"from", "to"}`: the details of `company.policy_changed`. */
function changesOf(before: PolicyView, after: PolicyView): Record<string, { from: unknown; to: unknown }> {
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of Object.keys(after) as Array<keyof PolicyView>) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) {
      changed[field] = { from: before[field], to: after[field] };
    }
  }
  return changed;
}

/**
 * A company's policy (docs/contract.md "Company policies and roles"): read by any member, replaced by a `*`
 * holder with a fresh proof. A change takes effect on every instance before the answer (the revocation bus's
 * confirmed notice evicts the company's cached credentials, which carry the policy), and the sessions the new
 * policy refuses end.
 */
@Injectable()
export class CompanyPolicyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
    private readonly bus: RevocationBus,
  ) {}

  get(companyId: number): Promise<PolicyView> {
    return policyOf(this.dataSource.manager, companyId);
  }

  async put(principal: Principal, body: CompanyPolicyDto, client: ClientInfo): Promise<PolicyView> {
    const policy: PolicyView = {
      mfa_required: body.mfa_required,
      session_days: body.session_days,
      idle_timeout_minutes: body.idle_timeout_minutes,
      ip_allowlist: normalizedList(body.ip_allowlist, client.ip),
    };
    const now = this.clock.now();
    const companyId = principal.companyId;
    const ended = await this.dataSource.transaction(async (manager) => {
      await lockCompanyForChange(manager, companyId);
      const before = await policyOf(manager, companyId);
      const changed = changesOf(before, policy);
      if (Object.keys(changed).length === 0) return null;
      await savePolicy(manager, companyId, policy, now);
      if (policy.session_days < before.session_days) await shortenTokensIn(manager, companyId, policy.session_days);
      const allows = allowlistTest(policy.ip_allowlist);
      const refused =
        allows !== null && changed.ip_allowlist
          ? await endSessionsOutside(manager, companyId, allows, principal.sessionId, now)
          : [];
      await this.audit.record(manager, [
        { type: 'company.policy_changed', companyId, ...requestContext(principal, client), details: { changed } },
        ...refused.map((session) => ({
          type: 'session.revoked' as const,
          companyId,
          ...requestContext(principal, client),
          subject: { kind: 'session' as const, id: session.id, email: session.email },
          details: { reason: 'ip_not_allowed' },
        })),
      ]);
      return refused;
    });
    if (ended !== null) {
      // Every instance drops the company's cached credentials (they carry the policy) before this answers.
      await this.bus.publish({ type: 'company_policy', companyId });
      await Promise.all(ended.map((session) => this.bus.publish({ type: 'session', sessionId: session.id })));
    }
    return policy;
  }
}

/**
 * The list as saved: each entry a CIDR (normalised, duplicates dropped), and the caller's own address inside a
 * non-empty list, so nobody locks themselves out (400 error_validation otherwise, nothing saved).
 */
function normalizedList(entries: readonly string[], callerIp: string): string[] {
  const details: FieldError[] = [];
  const list: string[] = [];
  entries.forEach((entry, index) => {
    const cidr = normalizeCidr(entry);
    if (cidr === null) details.push({ field: `ip_allowlist[${index}]`, message: 'must be an IPv4 or IPv6 CIDR' });
    else if (!list.includes(cidr)) list.push(cidr);
  });
  if (details.length > 0) throw ApiError.validation('ip_allowlist: every entry must be a CIDR.', details);
  const allows = allowlistTest(list);
  if (allows !== null && !allows(callerIp)) {
    const message = `ip_allowlist must hold your own address (${callerIp}), or you would lock yourself out.`;
    throw ApiError.validation(message, [{ field: 'ip_allowlist', message }]);
  }
  return list;
}
