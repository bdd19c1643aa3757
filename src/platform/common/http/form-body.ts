import { HttpStatus } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-codes';
import { takesBody } from './body-methods';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by {@link FormBody}: the route takes application/x-www-form-urlencoded besides JSON. */
    formBody?: boolean;
  }
}

const FORM = 'application/x-www-form-urlencoded';
/** A form body here carries a token or two, never a document. */
export const FORM_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The route also takes an application/x-www-form-urlencoded body, as OAuth and OpenID endpoints do (RFC 7662
 * introspection, OpenID back-channel logout); every other route keeps answering such a body 415, as before.
 */
export const FormBody = () => RouteConfig({ formBody: true });

export function isForm(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().split(';')[0].trim() === FORM;
}

/**
 * Registers the form parser (global in Fastify) and, on every route that reads a body and did not ask for it, a
 * check that answers a form body 415 before any guard or handler, exactly as a text/plain body is. A field given
 * twice becomes an array, which a DTO's string rule refuses (400), never a silent pick of one.
 */
export function registerFormBody(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(
    FORM,
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
      for (const [name, value] of new URLSearchParams(body as string)) {
        const seen = fields[name];
        fields[name] = seen === undefined ? value : [seen, value].flat();
      }
      done(null, fields);
    },
  );
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some(takesBody) || route.config?.formBody === true) return;
    const refuseForm: preValidationHookHandler = (request, _reply, done) => {
      if (!isForm(request.headers['content-type'])) return done();
      done(
        new ApiError(
          ErrorCode.UnsupportedMediaType,
          HttpStatus.UNSUPPORTED_MEDIA_TYPE,
          'The request body must be application/json.',
        ),
      );
    };
    route.preValidation = [
      refuseForm,
      ...(route.preValidation === undefined ? [] : [route.preValidation].flat()),
    ] as typeof route.preValidation;
  });
}
