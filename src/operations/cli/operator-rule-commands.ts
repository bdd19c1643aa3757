import type { Type } from '@nestjs/common';
import { isUuid } from '../../platform/common/http/uuid';
import { type CliCommand, positiveInteger, UsageError } from './cli-command';

/** The flags and commands every kind of operator rule (ratelimit:*, quota:*) shares. */

/** `--api-key`: the API key's id (a UUID) the rule binds, or none (the company's every credential). */
export function apiKeyFlag(value: string | undefined): string | null {
  if (value === undefined) return null;
  const id = value.trim().toLowerCase();
  if (!isUuid(id)) throw new UsageError(`--api-key must be an API key's id (a UUID), got "${value}"`);
  return id;
}

/** `--limit`: 1 to `max`. */
export function limitFlag(value: string, max: number): number {
  const limit = positiveInteger('limit', value);
  if (limit > max) throw new UsageError(`--limit must be 1 to ${max}, got ${value}`);
  return limit;
}

interface RuleActions {
  list(companyId?: number): Promise<unknown>;
  unset(id: number): Promise<unknown>;
}

/** `<prefix>:list [--company ID]` and `<prefix>:unset --id ID` of one kind of rule. */
export function listAndUnsetCommands(
  prefix: string,
  actions: Type<RuleActions>,
  summaries: { list: string; unset: string },
): Record<string, CliCommand> {
  return {
    [`${prefix}:list`]: {
      summary: summaries.list,
      flags: { required: [], optional: ['company'] },
      check(flags) {
        if (flags.company !== undefined) positiveInteger('company', flags.company);
      },
      run: (app, flags) =>
        app.get(actions).list(flags.company === undefined ? undefined : positiveInteger('company', flags.company)),
    },
    [`${prefix}:unset`]: {
      summary: summaries.unset,
      flags: { required: ['id'] },
      check(flags) {
        positiveInteger('id', flags.id);
      },
      run: (app, flags) => app.get(actions).unset(positiveInteger('id', flags.id)),
    },
  };
}
