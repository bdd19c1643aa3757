import type { FastifyInstance, FastifyRequest } from 'fastify';

type Done = (error: Error | null, body?: unknown) => void;

/**
 * The one JSON body parser, for `application/json` and (under /scim) `application/scim+json`: Fastify's own
 * (prototype poisoning refused), except that zero bytes are no body rather than an error. docs/contract.md
 * ("Whose people a company may speak for", Bodies): SCIM clients send the header on a bodiless DELETE, and
 * `curl -H 'content-type: application/json' -X POST …/logout` sends it on a logout; a route that needs a body
 * then answers 400 error_validation naming the missing fields, as for a request without the header.
 */
export function jsonBodyParser(fastify: FastifyInstance): (request: FastifyRequest, body: string, done: Done) => void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    parseJson(request, body, done);
  };
}

/** Replaces Fastify's application/json parser with {@link jsonBodyParser} (same body limit: the instance's). */
export function registerJsonBody(fastify: FastifyInstance): void {
  const parse = jsonBodyParser(fastify);
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    parse(request, body as string, done),
  );
}
