import fastifyMultipart from '@fastify/multipart';
import { HttpStatus } from '@nestjs/common';
import { type NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-codes';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by {@link MultipartBody}: the route takes multipart/form-data and nothing else. */
    multipartBody?: boolean;
  }
}

/** The route takes a multipart/form-data body (and only that); every other route keeps refusing one with 415. */
export const MultipartBody = () => RouteConfig({ multipartBody: true });

/**
 * Registers @fastify/multipart for the routes marked {@link MultipartBody}. The plugin's parser is global, so a
 * hook keeps the JSON-only rule: a multipart body anywhere else, or any other body on a multipart route, answers
 * 415 before a guard or handler runs, exactly like a text/plain body on a JSON route. The plugin only marks the
 * request; its body is read by the handler, after authentication, with these limits.
 */
export function registerMultipart(app: NestFastifyApplication, maxFileBytes: number): void {
  void app.register(fastifyMultipart, {
    // One file; a few small fields at most, so that the body's size is bounded by more than the file's.
    limits: {
      fileSize: maxFileBytes,
      files: 1,
      fields: 10,
      fieldSize: 1024,
      fieldNameSize: 100,
      parts: 12,
      headerPairs: 50,
    },
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preValidation', (request, _reply, done) => {
      if (request.is404) return done();
      const wantsMultipart = request.routeOptions.config.multipartBody === true;
      if (request.isMultipart() === wantsMultipart) return done();
      const expected = wantsMultipart ? 'multipart/form-data' : 'application/json';
      done(
        new ApiError(
          ErrorCode.UnsupportedMediaType,
          HttpStatus.UNSUPPORTED_MEDIA_TYPE,
          `The request body must be ${expected}.`,
        ),
      );
    });
}
