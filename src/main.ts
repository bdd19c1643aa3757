import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp } from './bootstrap/configure-app';
import { beginShutdown } from './bootstrap/edge-errors';
import { createHttpAdapter, NEST_APP_OPTIONS } from './bootstrap/http-adapter';
import { createLogger } from './common/logging/logger';
import { NestLogger } from './common/logging/nest-logger';
import { ConfigError, loadConfig } from './config/app-config';
import { loadEnvFile } from './config/env-file';
import { keepDataDirPrivate } from './config/private-data-dir';

async function main(): Promise<void> {
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
  const openDataDir = keepDataDirPrivate(config.dataDir);
  if (openDataDir) logger.warn({ dataDir: config.dataDir }, openDataDir);

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

  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    { url: `http://${config.host}:${port}`, database: config.usesEmbeddedDatabase ? 'embedded' : 'postgres' },
    'listening',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`Start failed: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
