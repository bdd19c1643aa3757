import { ANY, OVERRIDE_MODES, type OverrideMode } from '../../rate-limiting/overrides/override-table';
import { type CliCommand, positiveInteger, timeFlag, UsageError } from './cli-command';
import { apiKeyFlag, limitFlag, listAndUnsetCommands } from './operator-rule-commands';
import { RateLimitOverrideActions } from './rate-limit-override-actions';

/** An override's capacity (docs/contract.md). */
const MAX_OVERRIDE_LIMIT = 10_000;

function methodFlag(value: string): string {
  const method = value.trim().toUpperCase();
  if (method !== ANY && !/^[A-Z]{1,20}$/.test(method)) {
    throw new UsageError(`--method must be an HTTP method (GET, POST...) or *, got "${value}"`);
  }
  return method;
}

function groupFlag(value: string): string {
  const group = value.trim().toLowerCase();
  if (group !== ANY && !/^[a-z0-9_-]{1,100}$/.test(group)) {
    throw new UsageError(`--group must be an API group (products, users...) or *, got "${value}"`);
  }
  return group;
}

function modeFlag(value: string | undefined): OverrideMode {
  if (value === undefined) return 'enforce';
  if (!(OVERRIDE_MODES as readonly string[]).includes(value)) {
    throw new UsageError(`--mode must be enforce or shadow, got "${value}"`);
  }
  return value as OverrideMode;
}

const setInput = (flags: Record<string, string>) => ({
  companyId: positiveInteger('company', flags.company),
  apiKeyId: apiKeyFlag(flags['api-key']),
  method: methodFlag(flags.method),
  group: groupFlag(flags.group),
  limit: limitFlag(flags.limit, MAX_OVERRIDE_LIMIT),
  mode: modeFlag(flags.mode),
  expiresAt: timeFlag('expires', flags.expires) ?? null,
});

/** The operator's rate-limit overrides (docs/contract.md, "Rate limits a client can plan with"). */
export const RATE_LIMIT_COMMANDS: Record<string, CliCommand> = {
  'ratelimit:set': {
    summary:
      "replace the table's capacity (1 to 10000) for a company's credentials or one API key's, on every instance; " +
      'METHOD and GROUP may be *; --mode shadow refuses nothing and counts what it would refuse',
    flags: { required: ['company', 'method', 'group', 'limit'], optional: ['api-key', 'mode', 'expires'] },
    check(flags) {
      setInput(flags);
    },
    run: (app, flags) => app.get(RateLimitOverrideActions).set(setInput(flags)),
  },
  ...listAndUnsetCommands('ratelimit', RateLimitOverrideActions, {
    list: "list the rate-limit overrides, or a company's (a JSON array)",
    unset: 'remove a rate-limit override (its id from ratelimit:list); the table applies again',
  }),
};
