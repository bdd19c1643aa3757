import type { INestApplicationContext } from '@nestjs/common';

/** What one operator command is (src/operations/cli/cli-commands.ts lists them), and the checks their flags share. */

/** Bad input the operator can fix; printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface FlagSpec {
  required: string[];
  optional?: string[];
}

export interface CliCommand {
  /** One line for `--help`. */
  summary: string;
  flags: FlagSpec;
  /**
   * The flag whose value is a secret, always read from standard input (a pipe, or typed without echo): npm prints
   * its command line back and `ps` shows it. On the command line only `-` is accepted (an old spelling).
   */
  stdin?: { flag: string };
  /** Checks the flags before the database is opened, so a typo is reported as a typo. */
  check?(flags: Record<string, string>): void;
  /** The result, printed as one JSON line; `undefined` when the command wrote its own lines. */
  /** `out` prints a line before the result (audit:export); standard output unless run for the service's socket. */
  run(
    app: INestApplicationContext,
    flags: Record<string, string>,
    out?: (line: string) => Promise<void>,
  ): Promise<unknown>;
}

export function positiveInteger(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${flag} must be a positive whole number, got "${value}"`);
  }
  return Number(value);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function timeFlag(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (!ISO_TIME.test(value) || Number.isNaN(time.getTime())) {
    throw new UsageError(`--${flag} must be an ISO 8601 date or time (2026-01-31T00:00:00Z), got "${value}"`);
  }
  return time;
}
