import { Controller, Get, Header, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { OwnCredential } from '../../access/rules/auth.decorator';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import {
  groupResourceType,
  groupSchema,
  listResponse,
  serviceProviderConfig,
  userResourceType,
  userSchema,
} from './scim-discovery';
import { GROUP_SCHEMA } from './scim-group';
import { ScimError, SCIM_MEDIA_TYPE } from './scim-errors';
import { ScimTokenGuard } from './scim-token.guard';
import { USER_SCHEMA } from './scim-user';

export const SCIM_CREDENTIAL = 'SCIM bearer token';

/**
 * The query of a SCIM route, read by the handler or ignored: SCIM lets a client add `attributes` and
 * `excludedAttributes` to any request, and a server that does not project answers whole resources. A plain object
 * (no DTO) declares every parameter (common/http/declared-query.ts).
 */
export type SkippedQuery = Record<string, unknown>;

/** The base URL of /scim/v2 as the client reached it (TRUST_PROXY decides the protocol and host). */
export function scimBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}/scim/v2`;
}

/**
 * SCIM's discovery endpoints (RFC 7644 4), which identity providers read when a connection is set up. Left out of
 * the OpenAPI document: SCIM describes itself here, in its own media type and error schema.
 */
@ApiExcludeController()
@OwnCredential(SCIM_CREDENTIAL)
@UseGuards(ScimTokenGuard)
@RateLimit({ group: 'scim' })
@Controller('scim/v2')
export class ScimDiscoveryController {
  @Get('ServiceProviderConfig')
  @Header('content-type', SCIM_MEDIA_TYPE)
  config(@Req() request: FastifyRequest, @Query() _ignored: SkippedQuery) {
    return serviceProviderConfig(scimBaseUrl(request));
  }

  @Get('ResourceTypes')
  @Header('content-type', SCIM_MEDIA_TYPE)
  resourceTypes(@Req() request: FastifyRequest, @Query() _ignored: SkippedQuery) {
    const baseUrl = scimBaseUrl(request);
    return listResponse([userResourceType(baseUrl), groupResourceType(baseUrl)], 2, 1);
  }

  @Get('ResourceTypes/:id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  resourceType(@Req() request: FastifyRequest, @Param('id') id: string, @Query() _ignored: SkippedQuery) {
    if (id === 'Group') return groupResourceType(scimBaseUrl(request));
    if (id !== 'User') throw new ScimError(404, 'No such resource type; this service provisions Users and Groups.');
    return userResourceType(scimBaseUrl(request));
  }

  @Get('Schemas')
  @Header('content-type', SCIM_MEDIA_TYPE)
  schemas(@Req() request: FastifyRequest, @Query() _ignored: SkippedQuery) {
    const baseUrl = scimBaseUrl(request);
    return listResponse([userSchema(baseUrl), groupSchema(baseUrl)], 2, 1);
  }

  @Get('Schemas/:id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  schema(@Req() request: FastifyRequest, @Param('id') id: string, @Query() _ignored: SkippedQuery) {
    if (id === GROUP_SCHEMA) return groupSchema(scimBaseUrl(request));
    if (id !== USER_SCHEMA) throw new ScimError(404, 'No such schema.');
    return userSchema(scimBaseUrl(request));
  }
}
