import { type CanActivate, type ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { grants, type Permission } from '../../access/permissions/permission';
import { ScimError } from './scim-errors';
import { type ScimCaller, ScimTokensService } from './scim-tokens.service';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

type ScimRequest = FastifyRequest & { scimCaller?: ScimCaller };

const unauthorized = (detail: string) =>
  // RFC 6750 3: a resource server that wants a bearer token says so.
  new ScimError(HttpStatus.UNAUTHORIZED, detail, undefined, { 'www-authenticate': 'Bearer realm="scim"' });

/**
 * The credential of /scim/v2: `Authorization: Bearer <token>` as SCIM clients send it (the no-Bearer rule and
 * the JWT and API-key strategies govern /v1 only; the global guard treats these routes as `OwnCredential`). The
 * token names its company; every SCIM operation acts in that company only.
 */
@Injectable()
export class ScimTokenGuard implements CanActivate {
  constructor(private readonly tokens: ScimTokensService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ScimRequest>();
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') {
      throw unauthorized('This API needs Authorization: Bearer <SCIM token>.');
    }
    const token = BEARER.exec(header)?.[1];
    const caller = token === undefined ? null : await this.tokens.authenticate(token);
    if (caller === null) throw unauthorized('The SCIM token is not valid (unknown, deleted or malformed).');
    if (caller === 'orphaned') {
      throw unauthorized('The person who created this SCIM token no longer belongs to the company; issue a new one.');
    }
    request.scimCaller = caller;
    return true;
  }
}

/**
 * The company and token of a SCIM request (set by {@link ScimTokenGuard}); with `needs`, 403 unless the token
 * holds it now: reading the company's users needs `users:read`, changing them `users:write`, as for any other
 * credential of the company.
 */
export function scimCallerOf(request: FastifyRequest, needs?: Permission): ScimCaller {
  const caller = (request as ScimRequest).scimCaller;
  if (!caller) throw new Error('ScimTokenGuard did not run');
  if (needs !== undefined && !grants(caller.permissions, needs)) {
    throw new ScimError(
      HttpStatus.FORBIDDEN,
      `This SCIM token does not hold ${needs}: its creator no longer does, or did not when it was made.`,
    );
  }
  return caller;
}
