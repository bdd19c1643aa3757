import './platform/common/runtime/compile-cache';
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { HttpException } from '@nestjs/common';
import pino from 'pino';
import { createLogger } from './platform/common/logging/logger';
import { NestLogger } from './platform/common/logging/nest-logger';
import { ConfigError, loadConfig } from './platform/config/app-config';
import { loadEnvFile } from './platform/config/env-file';
import { CLI_COMMANDS, type CliCommand, FROM_STDIN, UsageError, writeLine } from './operations/cli/cli-commands';
import { forwardToService } from './operations/cli/operator-socket';
import { readSecret } from './operations/cli/read-secret';
import { keepDataDirPrivate } from './platform/config/private-data-dir';
import { CliModule } from './cli.module';

function synopsis(name: string, command: CliCommand): string {
  const required = command.flags.required.map((flag) => `--${flag} ${flag.toUpperCase()}`);
  const optional = (command.flags.optional ?? []).map((flag) => `[--${flag} ${flag.toUpperCase()}]`);
  const stdin = command.stdin ? [`< ${command.stdin.flag.toUpperCase()}_ON_STDIN`] : [];
  return [name, ...required, ...optional, ...stdin].join(' ');
}

const USAGE = [
  'usage: npm run cli -- <command> [--flag value]',
  '',
  'commands:',
  ...Object.entries(CLI_COMMANDS).flatMap(([name, command]) => [
    `  ${synopsis(name, command)}`,
    `      ${command.summary}`,
  ]),
  '',
  'Passwords are read from standard input (a pipe, or typed without echo), never from the command line.',
  'Each command prints its result as JSON on the last line of standard output.',
  'The :list commands print an array, audit:export one object per event and line, the others one object.',
  'Bad input: a one-line message on standard error, exit code 2, nothing changed.',
  'The database is the one DATABASE_URL (or DATA_DIR) names.',
  '',
].join('\n');

type Parsed = { help: true } | { help?: false; name: string; flags: Record<string, string> };

function parseCommandLine(argv: string[]): Parsed {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help' || rest.includes('--help')) return { help: true };
  const command = CLI_COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}"; one of ${Object.keys(CLI_COMMANDS).join(', ')}`);
  // The secret flag is known here only to be refused with a reason (npm would echo it), or as `-`.
  const fromStdinOnly = command.stdin?.flag;
  const known = [
    ...command.flags.required,
    ...(command.flags.optional ?? []),
    ...(fromStdinOnly ? [fromStdinOnly] : []),
  ];
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
  if (fromStdinOnly !== undefined && values[fromStdinOnly] !== undefined && values[fromStdinOnly] !== FROM_STDIN) {
    throw new UsageError(
      `${name}: --${fromStdinOnly} on the command line is refused (npm prints it back and ps shows it); ` +
        `it is read from standard input: pipe it in, or leave the flag out and type it at the prompt`,
    );
  }
  const missing = command.flags.required.filter((flag) => values[flag] === undefined);
  if (missing.length > 0) throw new UsageError(`${name}: missing ${missing.map((flag) => `--${flag}`).join(', ')}`);
  command.check?.(values as Record<string, string>);
  return { name, flags: values as Record<string, string> };
}

/** Fills in the secret flag from standard input when the command reads it there. */
async function readSecretFlag(command: CliCommand, flags: Record<string, string>): Promise<void> {
  const stdin = command.stdin;
  if (!stdin) return;
  const secret = await readSecret(`${stdin.flag}: `);
  if (secret === '') throw new UsageError(`no --${stdin.flag} on standard input (pipe it in, or type it)`);
  flags[stdin.flag] = secret;
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
  let parsed: Parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
    if (parsed.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    await readSecretFlag(CLI_COMMANDS[parsed.name], parsed.flags);
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
  // The CLI may be the first to write under DATA_DIR (the embedded database, the JWT secret).
  const openDataDir = keepDataDirPrivate(config.dataDir);
  if (openDataDir) process.stderr.write(`warning: ${openDataDir}\n`);
  // On the embedded database a running service owns the data folder: it runs the command for us.
  if (config.usesEmbeddedDatabase) {
    const forwarded = await forwardToService(config.dataDir, { command: parsed.name, flags: parsed.flags }, writeLine);
    if (forwarded) {
      if ('error' in forwarded) {
        process.stderr.write(`error: ${forwarded.error}\n`);
        return forwarded.exit;
      }
      if (forwarded.result !== undefined) process.stdout.write(`${JSON.stringify(forwarded.result)}\n`);
      return 0;
    }
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
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
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
