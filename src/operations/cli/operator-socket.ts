import { chmodSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { HttpException } from '@nestjs/common';
import { UsageError } from './cli-commands';

/**
 * On the embedded database only one process may open the data folder, so while the service runs the CLI hands
 * its command to the service over a Unix socket in DATA_DIR and the service runs it (the same code, in the same
 * process that owns the database). The socket sits in a directory only the service's user can enter (0700), and
 * is itself 0600: the file system is the access check, as for the data files themselves.
 */
export function operatorSocketPath(dataDir: string): string {
  return join(dataDir, 'operator', 'cli.sock');
}

/** Makes the socket's private directory (0700, also when it already existed with another mode). */
export function prepareSocketDirectory(dataDir: string): string {
  const directory = join(dataDir, 'operator');
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  return operatorSocketPath(dataDir);
}

/** One request: a command of CLI_COMMANDS with its (already checked) flags. */
export interface OperatorRequest {
  command: string;
  flags: Record<string, string>;
}

/** Answers, one JSON object per line: lines of output (audit:export), then a result or an error. */
export type OperatorAnswer = { line: string } | { result: unknown } | { error: string; exit: 1 | 2 };

export function errorAnswer(error: unknown): { error: string; exit: 1 | 2 } {
  const usage = error instanceof UsageError || (error instanceof HttpException && error.getStatus() < 500);
  let message = ((error as Error)?.message ?? String(error)).split('\n')[0];
  if (error instanceof HttpException) {
    const body = error.getResponse() as { message?: unknown };
    if (typeof body?.message === 'string') message = body.message;
  }
  return { error: message, exit: usage ? 2 : 1 };
}

/**
 * Sends the command to the running service. Resolves to null when no service listens (no socket, or a socket
 * left by a service that stopped): the CLI then opens the database itself.
 */
export function forwardToService(
  dataDir: string,
  request: OperatorRequest,
  writeLine: (line: string) => Promise<void>,
): Promise<{ result: unknown } | { error: string; exit: 1 | 2 } | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(operatorSocketPath(dataDir));
    let connected = false;
    let buffered = '';
    let chain = Promise.resolve();
    let final: { result: unknown } | { error: string; exit: 1 | 2 } | undefined;
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.end(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const answer = JSON.parse(buffered.slice(0, newline)) as OperatorAnswer;
        buffered = buffered.slice(newline + 1);
        if ('line' in answer) chain = chain.then(() => writeLine(answer.line));
        else final = answer;
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) resolve(null);
      else reject(error);
    });
    socket.on('close', () => {
      if (!connected) return;
      void chain.then(() =>
        final ? resolve(final) : reject(new Error('the running service closed the connection without an answer')),
      );
    });
  });
}
