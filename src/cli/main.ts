import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { HttpException } from '@nestjs/common';
import pino from 'pino';
import { createLogger } from '../common/logging/logger';
import { NestLogger } from '../common/logging/nest-logger';
import { ConfigError, loadConfig } from '../config/app-config';
import { loadEnvFile } from '../config/env-file';
import { CLI_COMMANDS, UsageError } from './cli-commands';
import { CliModule } from './cli.module';

const USAGE = `usage: npm run cli -- <command> [--flag value]
commands:
${Object.entries(CLI_COMMANDS)
  .map(([name, { flags }]) => {
    const required = flags.required.map((flag) => `--${flag} ${flag.toUpperCase()}`);
    const optional = (flags.optional ?? []).map((flag) => `[--${flag} ${flag.toUpperCase()}]`);
    return `  ${[name, ...required, ...optional].join(' ')}`;
  })
  .join('\n')}`;

function parseCommandLine(argv: string[]): { name: string; flags: Record<string, string> } {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help') throw new UsageError(USAGE.split('\n').join(' | '));
  const command = CLI_COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}"; one of ${Object.keys(CLI_COMMANDS).join(', ')}`);
  const known = [...command.flags.required, ...(command.flags.optional ?? [])];
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: Object.fromEntries(known.map((flag) => [flag, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    // parseArgs quotes a stray argument, and that may be the rest of an unquoted password with a space in it.
    const reason =
      (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
        ? 'unexpected argument; every value follows its --flag (quote a value that contains spaces)'
        : (error as Error).message.split('\n')[0];
    throw new UsageError(`${name}: ${reason}`);
  }
  const missing = command.flags.required.filter((flag) => values[flag] === undefined);
  if (missing.length > 0) throw new UsageError(`${name}: missing ${missing.map((flag) => `--${flag}`).join(', ')}`);
  command.check?.(values as Record<string, string>);
  return { name, flags: values as Record<string, string> };
}

/** A one-line reason, whatever was thrown. */
function describe(error: unknown): string {
  if (error instanceof HttpException) {
    const body = error.getResponse() as { message?: unknown };
    if (typeof body?.message === 'string') return body.message;
  }
  return ((error as Error)?.message ?? String(error)).split('\n')[0];
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`error: ${describe(error)}\n`);
    return 2;
  }

  loadEnvFile();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Configuration error: ${error.message}\n`);
    return 2;
  }
  // Standard output carries only the result; diagnostics go to standard error.
  const logger = createLogger('warn', pino.destination({ dest: 2, sync: true }));

  let app;
  try {
    // Silent while booting: Nest and TypeORM would report a failed start with log lines of their own, and the
    // operator gets exactly one line, written below.
    app = await NestFactory.createApplicationContext(CliModule.forRoot(config, logger), {
      logger: false,
      abortOnError: false,
    });
  } catch (error) {
    process.stderr.write(`error: cannot open the database: ${describe(error)}\n`);
    return 1;
  }
  app.useLogger(new NestLogger(logger));
  try {
    const result = await CLI_COMMANDS[parsed.name].run(app, parsed.flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${describe(error)}\n`);
    return error instanceof UsageError || (error instanceof HttpException && error.getStatus() < 500) ? 2 : 1;
  } finally {
    await app.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${describe(error)}\n`);
    process.exit(1);
  },
);
