import { VersioningType } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerFormBody } from '../../platform/common/http/form-body';
import { registerJsonBody } from '../../platform/common/http/json-body';
import { registerMultipart } from '../../platform/common/http/multipart';
import type { AppLogger } from '../../platform/common/logging/logger';
import { loggableUrl } from '../../platform/common/logging/logger';
import { AppConfig } from '../../platform/config/app-config';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { RateLimitHeaders } from '../../rate-limiting/limiter/rate-limit-headers';
import { configureScimHttp } from '../../staff/scim/scim-body';
import { registerAdminPage } from './admin-page';
import { corsPolicy } from './cors';
import { LoadShedder } from '../shedding/load-shedder';
import { installRequestHooks } from './request-hooks';
import { setUpOpenApi } from './openapi';

/**
 * Everything about the HTTP surface that is not a module: versioned paths, accepted body types, the request
 * log, the administration page (/admin) and the OpenAPI document. The service, the tests and the benchmark all
 * go through here, so they all exercise the same stack.
 */
export function configureApp(app: NestFastifyApplication, logger: AppLogger): void {
  app.enableVersioning({ type: VersioningType.URI });

  const fastify = app.getHttpAdapter().getInstance();
  // JSON only: a text/plain body must answer 415, not reach a handler as a string.
  fastify.removeContentTypeParser(['text/plain']);
  // A JSON content type with zero bytes is no body (json-body.ts).
  registerJsonBody(fastify);
  // multipart/form-data only where a route asks for it (file uploads); JSON stays the rule everywhere else.
  registerMultipart(app, app.get(AppConfig).filesMaxBytes);
  // /scim/v2 (SCIM 2.0) is not versioned (its controllers declare no version) and takes application/scim+json.
  configureScimHttp(fastify);
  // application/x-www-form-urlencoded only where a route asks for it (token introspection,
  // OpenID back-channel logout).
  registerFormBody(fastify);

  installRequestHooks(fastify, {
    cors: corsPolicy(app.get(AppConfig).corsOrigins),
    rateLimitHeaders: app.get(RateLimitHeaders),
    metrics: app.get(AppMetrics),
    shedder: app.get(LoadShedder),
  });
  // Only with the request log on: an onResponse hook makes Fastify attach and remove two listeners and read
  // the clock twice on every response, which a production instance at LOG_LEVEL=warn would pay for nothing.
  if (logger.isLevelEnabled('info')) {
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
  }

  registerAdminPage(fastify);
  setUpOpenApi(app);
}
