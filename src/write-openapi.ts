import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { VersioningType } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { createLogger } from './platform/common/logging/logger';
import { loadConfig } from './platform/config/app-config';
import { createHttpAdapter, NEST_APP_OPTIONS } from './operations/bootstrap/http-adapter';
import { createOpenApiDocument } from './operations/bootstrap/openapi';

/**
 * `node dist/src/write-openapi.js FILE`: writes the application's OpenAPI document — the one served at
 * /docs/openapi.json — without a database or a listening socket (Nest's preview mode builds the route table
 * and instantiates nothing). `npm run lint:openapi` lints what this writes.
 */
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: write-openapi.js FILE');
  const config = loadConfig({ NODE_ENV: 'development', JWT_SECRET: 'x'.repeat(32) });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, createLogger('silent')),
    createHttpAdapter(config),
    { ...NEST_APP_OPTIONS, preview: true, logger: false },
  );
  // As configureApp does for the served app: /v1 paths.
  app.enableVersioning({ type: VersioningType.URI });
  writeFileSync(target, `${JSON.stringify(createOpenApiDocument(app, { strict: true }), null, 2)}\n`);
  await app.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`write-openapi: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
