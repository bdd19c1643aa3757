import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OPERATOR } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { findCompany, lockCompanyForChange } from '../../accounts/company/company-records';
import { DEFAULT_POLICY, policyOf, resetPolicy } from '../../accounts/company-policy/company-policy-records';
import { ApiError } from '../../platform/common/errors/api-error';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { type CliCommand, positiveInteger } from './cli-command';

/**
 * docs/contract.md "Company policies and roles": the operator's way back into a company whose policy locks its
 * administrators out (an allowlist of networks they are no longer in). The defaults again, `company.policy_changed`
 * with `actor.kind: "operator"`, and every instance told before the prompt returns.
 */
async function resetCompanyPolicy(app: INestApplicationContext, companyId: number) {
  const reset = await app.get(DataSource).transaction(async (manager) => {
    if (!(await findCompany(manager, companyId))) throw ApiError.notFound(`company ${companyId} does not exist`);
    await lockCompanyForChange(manager, companyId);
    const before = await policyOf(manager, companyId);
    if (!(await resetPolicy(manager, companyId))) return false;
    const changed = Object.fromEntries(
      (Object.keys(DEFAULT_POLICY) as Array<keyof typeof DEFAULT_POLICY>)
        .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(DEFAULT_POLICY[field]))
        .map((field) => [field, { from: before[field], to: DEFAULT_POLICY[field] }]),
    );
    await app.get(AuditRecorder).record(manager, {
      type: 'company.policy_changed',
      companyId,
      actor: OPERATOR,
      details: { changed },
    });
    return true;
  });
  if (reset) await app.get(RevocationBus).publish({ type: 'company_policy', companyId });
  return { company_id: companyId, reset, policy: DEFAULT_POLICY };
}

export const POLICY_COMMANDS: Record<string, CliCommand> = {
  'policy:reset': {
    summary: "put a company's policy back to the defaults (no second factor required, 14 days, any address)",
    flags: { required: ['company'] },
    check(flags) {
      positiveInteger('company', flags.company);
    },
    run: (app, flags) => resetCompanyPolicy(app, positiveInteger('company', flags.company)),
  },
};
