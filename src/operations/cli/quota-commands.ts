import { MAX_QUOTA_LIMIT } from '../../rate-limiting/quotas/quota-records';
import { QUOTA_PERIODS, type QuotaPeriod } from '../../rate-limiting/quotas/rate-limit-quota.entity';
import { type CliCommand, positiveInteger, UsageError } from './cli-command';
import { apiKeyFlag, limitFlag, listAndUnsetCommands } from './operator-rule-commands';
import { QuotaActions } from './quota-actions';

function perFlag(value: string): QuotaPeriod {
  const per = value.trim().toLowerCase();
  if (!(QUOTA_PERIODS as readonly string[]).includes(per)) {
    throw new UsageError(`--per must be hour or day, got "${value}"`);
  }
  return per as QuotaPeriod;
}

const setInput = (flags: Record<string, string>) => ({
  companyId: positiveInteger('company', flags.company),
  apiKeyId: apiKeyFlag(flags['api-key']),
  per: perFlag(flags.per),
  limit: limitFlag(flags.limit, MAX_QUOTA_LIMIT),
});

/** The operator's quotas (docs/contract.md, "Beyond the bucket": quotas). */
export const QUOTA_COMMANDS: Record<string, CliCommand> = {
  'quota:set': {
    summary:
      "give a company's credentials, or one API key, at most N counted requests per UTC hour or day, on every " +
      'instance; setting the same scope and period again replaces it',
    flags: { required: ['company', 'per', 'limit'], optional: ['api-key'] },
    check(flags) {
      setInput(flags);
    },
    run: (app, flags) => app.get(QuotaActions).set(setInput(flags)),
  },
  ...listAndUnsetCommands('quota', QuotaActions, {
    list: "list the quotas, or a company's (a JSON array)",
    unset: 'remove a quota (its id from quota:list)',
  }),
};
