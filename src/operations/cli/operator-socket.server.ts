import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, rmSync } from 'node:fs';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { AppConfig } from '../../platform/config/app-config';
import { CLI_COMMANDS, UsageError } from './cli-commands';
import { errorAnswer, type OperatorAnswer, type OperatorRequest, prepareSocketDirectory } from './operator-socket';

/** A request line longer than this is not a CLI command (flags are short; a password at most 1 KiB). */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * The service's end of the operator socket (see operator-socket.ts), on the embedded database only: with
 * PostgreSQL the CLI opens the database itself. Commands run one at a time, each like a CLI run: the same
 * checks, the same services, and the same notices to the other instances.
 */
@Injectable()
export class OperatorSocketServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.usesEmbeddedDatabase) return;
    try {
      this.server = await this.listen();
    } catch (error) {
      // The service itself does not need the socket: without it the CLI says the database is in use.
      this.logger.warn({ err: error }, 'operator socket unavailable; the CLI needs the service stopped');
    }
  }

  private async listen(): Promise<Server> {
    const path = prepareSocketDirectory(this.config.dataDir);
    // This process holds the data folder's lock, so a socket file here was left by one that stopped.
    rmSync(path, { force: true });
    // Half-open: the CLI ends its side after the request, and the answer still has to travel back.
    const server = createServer({ allowHalfOpen: true }, (socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
    return server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > MAX_REQUEST_BYTES) socket.destroy();
    });
    socket.on('end', () => {
      this.queue = this.queue.then(() => this.run(socket, received));
    });
  }

  private async run(socket: Socket, received: string): Promise<void> {
    const send = async (answer: OperatorAnswer): Promise<void> => {
      if (socket.destroyed || socket.write(`${JSON.stringify(answer)}\n`)) return;
      // The CLI reads slowly (a large export into a pipe): wait for it, or for it to go away.
      await new Promise((resolve) => {
        socket.once('drain', resolve);
        socket.once('close', resolve);
      });
    };
    try {
      const request = JSON.parse(received) as OperatorRequest;
      const command = Object.hasOwn(CLI_COMMANDS, request.command) ? CLI_COMMANDS[request.command] : undefined;
      if (!command || typeof request.flags !== 'object') throw new UsageError('unknown command');
      const app = { get: (token: unknown) => this.moduleRef.get(token as never, { strict: false }) };
      command.check?.(request.flags);
      const result = await command.run(app as INestApplicationContext, request.flags, (line) => send({ line }));
      await send({ result });
    } catch (error) {
      const answer = errorAnswer(error);
      if (answer.exit === 1) this.logger.error({ err: error }, 'operator command failed');
      await send(answer);
    } finally {
      socket.end();
    }
  }
}
