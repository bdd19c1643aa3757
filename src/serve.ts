import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp } from './operations/bootstrap/configure-app';
import { beginShutdown } from './operations/bootstrap/edge-errors';
import { createHttpAdapter, NEST_APP_OPTIONS } from './operations/bootstrap/http-adapter';
import { createLogger } from './platform/common/logging/logger';
import { NestLogger } from './platform/common/logging/nest-logger';
import { ConfigError, loadConfig } from './platform/config/app-config';
import { loadEnvFile } from './platform/config/env-file';
import { keepDataDirPrivate } from './platform/config/private-data-dir';
import { DemoDataService } from './operations/seed/demo-data.service';

/** Starts the service; `unbounded` is main.ts's note when the heap bound could not be applied. */
export async function serve(unbounded: string | undefined): Promise<void> {
  loadEnvFile();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Configuration error: ${error.message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel);
  if (unbounded) logger.warn(unbounded);
  const openDataDir = keepDataDirPrivate(config.dataDir);
  if (openDataDir) logger.warn({ dataDir: config.dataDir }, openDataDir);
  if (config.isProduction && config.encryptionKey === undefined) {
    logger.warn(
      'ENCRYPTION_KEY is not set: stored TOTP secrets are encrypted under a key derived from JWT_SECRET; set ' +
        'ENCRYPTION_KEY (openssl rand -base64 32) to give them a key of their own (they are re-encrypted at start)',
    );
  }

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, logger),
    createHttpAdapter(config),
    { ...NEST_APP_OPTIONS, logger: new NestLogger(logger) },
  );
  configureApp(app, logger);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    // A request that never finishes must not keep a deploy waiting forever.
    setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timed out');
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    // New requests answer 503 in the contract's shape from this moment, also while shutdown hooks run.
    beginShutdown(app);
    app.close().then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exitCode = 0;
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush();
        process.exit(1);
      },
    );
  };
  // Before the "listening" line: a supervisor that sends SIGTERM as soon as it reads that line must find the
  // handler in place, or the signal's default action kills the process without a graceful stop.
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  await app.get(DemoDataService).seedOnFirstStart();

  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  logger.info(
    {
      url,
      admin: `${url}/admin`,
      docs: `${url}/docs`,
      database: config.usesEmbeddedDatabase ? 'embedded' : 'postgres',
    },
    'listening',
  );
}

/** One line an operator can act on: the port's owner is the usual first-start failure. */
export function startFailure(error: unknown): string {
  const { code, address, port } = (error ?? {}) as { code?: string; address?: string; port?: number };
  if (code === 'EADDRINUSE') return `port ${port} on ${address} is already in use; stop what holds it or set PORT`;
  return (error as Error)?.message ?? String(error);
}
