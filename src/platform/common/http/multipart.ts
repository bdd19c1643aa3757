import fastifyMultipart from '@fastify/multipart';
import { HttpStatus } from '@nestjs/common';
import { type NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-codes';
import { takesBody } from './body-methods';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by {@link MultipartBody}: the route takes multipart/form-data and nothing else. */
    multipartBody?: boolean;
  }
}

/** The route takes a multipart/form-data body (and only that); every other route keeps refusing one with 415. */
export const MultipartBody = () => RouteConfig({ multipartBody: true });

/** @fastify/multipart's hooks for its disk mode (`saveRequestFiles`), which this service never uses. */
const DISK_MODE_HOOKS = ['onRequest', 'onResponse'];

const unsupportedMediaType = (expected: string) =>
  new ApiError(
    ErrorCode.UnsupportedMediaType,
    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    `The request body must be ${expected}.`,
  );

/**
 * Registers @fastify/multipart for the routes marked {@link MultipartBody}. The plugin's parser is global, so a
 * check keeps the JSON-only rule: a multipart body anywhere else, or any other body on a multipart route, answers
 * 415 before a guard or handler runs, exactly like a text/plain body on a JSON route. The plugin only marks the
 * request; its body is read by the handler, after authentication, with these limits.
 *
 * Two things keep uploads from costing every other request:
 * - The check is a route-level hook of the routes that take a body, not a global one: a GET never runs it.
 * - The plugin gets a view of the instance that leaves out its disk-mode hooks. Those clean up temporary files
 *   of `saveRequestFiles` when the response ends or the client goes away; the service streams the one file
 *   part instead and never writes such files, yet the hooks would run on every request of every route (an
 *   async onRequest that adds a `close` listener, and an async onResponse that makes Fastify add two more).
 *   Should a new version of the plugin add other hooks, or stop adding these, the start fails here rather than
 *   silently dropping something it needs.
 */
export function registerMultipart(app: NestFastifyApplication, maxFileBytes: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const skipped: string[] = [];
  const view: FastifyInstance = Object.create(fastify, {
    addHook: {
      value: (name: string) => {
        if (!DISK_MODE_HOOKS.includes(name)) throw new Error(`@fastify/multipart added an unexpected ${name} hook`);
        skipped.push(name);
        return view;
      },
    },
  });
  fastifyMultipart(
    view,
    {
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
    },
    (error) => {
      if (error) throw error;
    },
  );
  if ([...skipped].sort().join() !== [...DISK_MODE_HOOKS].sort().join()) {
    throw new Error(`@fastify/multipart no longer adds exactly its disk-mode hooks (${skipped.join(', ')})`);
  }

  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some(takesBody)) return;
    const wantsMultipart = route.config?.multipartBody === true;
    const expected = wantsMultipart ? 'multipart/form-data' : 'application/json';
    const checkMediaType: preValidationHookHandler = (request, _reply, done) => {
      if (request.isMultipart() === wantsMultipart) return done();
      done(unsupportedMediaType(expected));
    };
    route.preValidation = [
      checkMediaType,
      ...(route.preValidation === undefined ? [] : [route.preValidation].flat()),
    ] as typeof route.preValidation;
  });
}
