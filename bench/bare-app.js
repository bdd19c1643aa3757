'use strict';
// The baseline: a NestJS application on the same Fastify adapter with one route returning the same JSON as
// GET /v1/users/me, and nothing else (no guards, no filter, no logging). Plain JS so it needs no build step.
//
// BARE_VARIANT=floor adds what the service's design costs before it does any work of its own: URI versioning,
// two global async guards that do nothing, a custom parameter decorator, the global validation pipe and the
// same four extra response headers. The gap between the two rows is the framework's floor for this design.
require('reflect-metadata');
const { Controller, Get, Module, createParamDecorator, ValidationPipe, VersioningType } = require('@nestjs/common');
const { APP_GUARD, APP_PIPE, NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');

const body = JSON.parse(process.env.BARE_BODY || '{"ok":true}');
const floor = process.env.BARE_VARIANT === 'floor';

const Principal = createParamDecorator((_data, context) => context.switchToHttp().getRequest().principal);

class BareController {
  me() {
    return body;
  }
}
Controller(floor ? { path: 'bare', version: '1' } : 'bare')(BareController);
const descriptor = Object.getOwnPropertyDescriptor(BareController.prototype, 'me');
Get('me')(BareController.prototype, 'me', descriptor);
if (floor) Principal()(BareController.prototype, 'me', 0);

class NoOpGuard {
  async canActivate(context) {
    context.switchToHttp().getRequest().principal = true;
    return true;
  }
}
class SecondNoOpGuard {
  async canActivate() {
    return true;
  }
}

const providers = floor
  ? [
      { provide: APP_GUARD, useClass: NoOpGuard },
      { provide: APP_GUARD, useClass: SecondNoOpGuard },
      { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }) },
    ]
  : [];

class BareModule {}
Module({ controllers: [BareController], providers })(BareModule);

(async () => {
  const app = await NestFactory.create(BareModule, new FastifyAdapter(), { logger: false, bodyParser: false });
  if (floor) {
    app.enableVersioning({ type: VersioningType.URI });
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (request, reply, done) => {
        reply.header('x-request-id', request.id);
        reply.header('x-rate-limit-limit', 30);
        reply.header('x-rate-limit-remaining', 29);
        reply.header('x-rate-limit-identifier', `${request.ip}|GET|bare|0123456789abcdef`);
        done();
      });
  }
  await app.listen(Number(process.env.PORT || 0), '127.0.0.1');
  const { port } = app.getHttpServer().address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}` })}\n`);
  process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
})();
