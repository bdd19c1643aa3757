import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OwnCredential } from '../../access/rules/auth.decorator';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { clientOf } from '../../platform/common/http/client-info';
import { parseRecordId } from '../../platform/common/http/record-id';
import { listResponse, MAX_RESULTS } from './scim-discovery';
import { SCIM_CREDENTIAL, scimBaseUrl, type SkippedQuery } from './scim-discovery.controller';
import { SCIM_MEDIA_TYPE } from './scim-errors';
import { listQuery, parseEqFilter } from './scim-filter';
import { GROUP_SCHEMA, groupResource, noSuchGroup, parseGroupPatch, parseGroupResource } from './scim-group';
import { scimCallerOf, ScimTokenGuard } from './scim-token.guard';
import { ScimGroupsService } from './scim-groups.service';

/** `:id` of a Group: the role's id; anything else is no group (404, as for another company's role). */
function groupIdOf(raw: string): number {
  const id = parseRecordId(raw);
  if (id === null) throw noSuchGroup();
  return id;
}

/** `excludedAttributes=members` (Entra asks so when it only looks a group up): the list without members. */
function withoutMembers(query: SkippedQuery): boolean {
  const excluded = query.excludedAttributes;
  return typeof excluded === 'string' && excluded.split(',').some((name) => name.trim().toLowerCase() === 'members');
}

/**
 * /scim/v2/Groups (RFC 7643 4.2, RFC 7644) for the company of the bearer token: the company's roles. Left out of
 * the OpenAPI document, as /scim/v2/Users is.
 */
@ApiExcludeController()
@OwnCredential(SCIM_CREDENTIAL)
@UseGuards(ScimTokenGuard)
@RateLimit({ group: 'scim' })
@Controller('scim/v2/Groups')
export class ScimGroupsController {
  constructor(private readonly groups: ScimGroupsService) {}

  @Get()
  @Header('content-type', SCIM_MEDIA_TYPE)
  async list(@Req() request: FastifyRequest, @Query() query: SkippedQuery) {
    const { companyId } = scimCallerOf(request, 'users:read');
    const { filter, startIndex, count } = listQuery(query, MAX_RESULTS);
    const name =
      filter === undefined ? undefined : parseEqFilter(filter, 'displayName', `${GROUP_SCHEMA.toLowerCase()}:`);
    const { groups, total } = await this.groups.list(companyId, { name, offset: startIndex - 1, limit: count });
    const baseUrl = scimBaseUrl(request);
    const members = !withoutMembers(query);
    return listResponse(
      groups.map((group) => groupResource(group, baseUrl, members)),
      total,
      startIndex,
    );
  }

  @Get(':id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  async get(@Req() request: FastifyRequest, @Param('id') id: string, @Query() query: SkippedQuery) {
    const { companyId } = scimCallerOf(request, 'users:read');
    return groupResource(
      await this.groups.find(companyId, groupIdOf(id)),
      scimBaseUrl(request),
      !withoutMembers(query),
    );
  }

  @Post()
  @HttpCode(201)
  @Header('content-type', SCIM_MEDIA_TYPE)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Query() _ignored: SkippedQuery,
  ) {
    const caller = scimCallerOf(request, 'users:write');
    const group = await this.groups.create(caller, parseGroupResource(body), clientOf(request));
    const resource = groupResource(group, scimBaseUrl(request));
    void reply.header('location', resource.meta.location);
    return resource;
  }

  /** Okta's shape: the whole group, its complete member list included. */
  @Put(':id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  async replace(
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() _ignored: SkippedQuery,
  ) {
    const groupId = groupIdOf(id);
    const caller = scimCallerOf(request, 'users:write');
    const group = await this.groups.update(caller, groupId, parseGroupResource(body), clientOf(request));
    return groupResource(group, scimBaseUrl(request));
  }

  /** Entra's shape: members added and removed, `op` in any case. */
  @Patch(':id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  async patch(
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() _ignored: SkippedQuery,
  ) {
    const groupId = groupIdOf(id);
    const caller = scimCallerOf(request, 'users:write');
    const group = await this.groups.update(caller, groupId, parseGroupPatch(body), clientOf(request));
    return groupResource(group, scimBaseUrl(request));
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Query() _ignored: SkippedQuery,
  ): Promise<void> {
    await this.groups.remove(scimCallerOf(request, 'users:write'), groupIdOf(id), clientOf(request));
  }
}
