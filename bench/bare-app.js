'use strict';
// The baseline: a NestJS application on the same Fastify adapter with one route returning the same JSON as
// GET /v1/users/me, and nothing else (no guards, no filter, no logging). Plain JS so it needs no build step.
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');

const body = JSON.parse(process.env.BARE_BODY || '{"ok":true}');

class BareController {
  me() {
    return body;
  }
}
Controller('bare')(BareController);
Get('me')(BareController.prototype, 'me', Object.getOwnPropertyDescriptor(BareController.prototype, 'me'));

class BareModule {}
Module({ controllers: [BareController] })(BareModule);

(async () => {
  const app = await NestFactory.create(BareModule, new FastifyAdapter(), { logger: false });
  await app.listen(Number(process.env.PORT || 0), '127.0.0.1');
  const { port } = app.getHttpServer().address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}` })}\n`);
  process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
})();
