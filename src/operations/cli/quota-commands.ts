import { isUuid } from '../../platform/common/http/uuid';
import { MAX_QUOTA_LIMIT } from '../../rate-limiting/quotas/quota-records';
import { QUOTA_PERIODS, type QuotaPeriod } from '../../rate-limiting/quotas/rate-limit-quota.entity';
import { type CliCommand, positiveInteger, UsageError } from './cli-command';
import { QuotaActions } from './quota-actions';

function perFlag(value: string): QuotaPeriod {
  const per = value.trim().toLowerCase();
  if (!(QUOTA_PERIODS as readonly string[]).includes(per)) {
    throw new UsageError(`--per must be hour or day, got "${value}"`);
  }
  return per as QuotaPeriod;
}

function limitFlag(value: string): number {
  const limit = positiveInteger('limit', value);
  if (limit > MAX_QUOTA_LIMIT) throw new UsageError(`--limit must be 1 to ${MAX_QUOTA_LIMIT}, got ${value}`);
  return limit;
}

function apiKeyFlag(value: string | undefined): string | null {
  if (value === undefined) return null;
  const id = value.trim().toLowerCase();
  if (!isUuid(id)) throw new UsageError(`--api-key must be an API key's id (a UUID), got "${value}"`);
  return id;
}

const setInput = (flags: Record<string, string>) => ({
  companyId: positiveInteger('company', flags.company),
  apiKeyId: apiKeyFlag(flags['api-key']),
  per: perFlag(flags.per),
  limit: limitFlag(flags.limit),
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
  'quota:list': {
    summary: "list the quotas, or a company's (a JSON array)",
    flags: { required: [], optional: ['company'] },
    check(flags) {
      if (flags.company !== undefined) positiveInteger('company', flags.company);
    },
    run: (app, flags) =>
      app.get(QuotaActions).list(flags.company === undefined ? undefined : positiveInteger('company', flags.company)),
  },
  'quota:unset': {
    summary: 'remove a quota (its id from quota:list)',
    flags: { required: ['id'] },
    check(flags) {
      positiveInteger('id', flags.id);
    },
    run: (app, flags) => app.get(QuotaActions).unset(positiveInteger('id', flags.id)),
  },
};
