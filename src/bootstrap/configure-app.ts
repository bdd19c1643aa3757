import { VersioningType } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { AppLogger } from '../common/logging/logger';
import { loggableUrl } from '../common/logging/logger';

/**
 * Everything about the HTTP surface that is not a module: versioned paths, accepted body types, the request
 * log and the OpenAPI document. The service, the tests and the benchmark all go through here, so they all
 * exercise the same stack.
 */
export function configureApp(app: NestFastifyApplication, logger: AppLogger): void {
  app.enableVersioning({ type: VersioningType.URI });

  const fastify = app.getHttpAdapter().getInstance();
  // JSON only: a text/plain body must answer 415, not reach a handler as a string.
  fastify.removeContentTypeParser(['text/plain']);

  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    logger.info(
      {
        reqId: request.id,
        method: request.method,
        url: loggableUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
    done();
  });

  setUpOpenApi(app);
}

function setUpOpenApi(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Staff auth and rate limit API')
      .setDescription(
        'Company-bound staff login tokens and per-client rate limits. Protected routes take the raw credential ' +
          '(a JWT, or an API key `key:secret`) in the `Authorization` header, with no `Bearer` prefix.',
      )
      .setVersion('1')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'Authorization' }, 'Authorization')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Staff auth API',
  });
}
