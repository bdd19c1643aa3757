import { errorCodes, type FastifyInstance } from 'fastify';
import { jsonBodyParser } from '../../platform/common/http/json-body';
import { errorDialectFor, registerErrorDialect } from '../../platform/common/errors/error-dialects';
import { SCIM_ERROR_DIALECT } from './scim-errors';

/**
 * The HTTP surface SCIM needs beyond its routes (configure-app.ts calls it): `application/scim+json` bodies
 * (RFC 7644 3.1) parsed as JSON, under /scim only (every /v1 route stays JSON-only, 415 otherwise), and errors
 * under /scim in SCIM's error schema (the global filter asks the registered dialect).
 */
export function configureScimHttp(fastify: FastifyInstance): void {
  registerErrorDialect(SCIM_ERROR_DIALECT);
  const parseJson = jsonBodyParser(fastify);
  fastify.addContentTypeParser('application/scim+json', { parseAs: 'string' }, (request, body, done) => {
    if (errorDialectFor(request.url) !== SCIM_ERROR_DIALECT) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
