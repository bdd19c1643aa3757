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
import { DataSource } from 'typeorm';
import { OwnCredential } from '../../access/rules/auth.decorator';
import { clientOf } from '../../platform/common/http/client-info';
import { parseRecordId } from '../../platform/common/http/record-id';
import { findProvisionedMember, pageOfProvisionedMembers } from '../../accounts/membership/membership-records';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { listResponse, MAX_RESULTS } from './scim-discovery';
import { SCIM_CREDENTIAL, scimBaseUrl, type SkippedQuery } from './scim-discovery.controller';
import { ScimError, SCIM_MEDIA_TYPE } from './scim-errors';
import { listQuery, parseUserFilter } from './scim-filter';
import { parsePatch } from './scim-patch';
import { scimCallerOf, ScimTokenGuard } from './scim-token.guard';
import { parseUserResource, userResource } from './scim-user';
import { ScimUsersService } from './scim-users.service';

/** `:id` of a User: the employee's id; anything else is no user (404, as for another company's employee). */
function userIdOf(raw: string): number {
  const id = parseRecordId(raw);
  if (id === null) throw ScimError.notFound();
  return id;
}

/**
 * /scim/v2/Users (RFC 7644) for the company of the bearer token: members of that company, `userName` their
 * e-mail, `active` their membership not suspended. Left out of the OpenAPI document (SCIM's own /Schemas and
 * /ResourceTypes describe it); every query parameter is read here, as SCIM lets clients send ones a server
 * ignores (attributes, excludedAttributes).
 */
@ApiExcludeController()
@OwnCredential(SCIM_CREDENTIAL)
@UseGuards(ScimTokenGuard)
@RateLimit({ group: 'scim' })
@Controller('scim/v2/Users')
export class ScimUsersController {
  constructor(
    private readonly users: ScimUsersService,
    private readonly dataSource: DataSource,
  ) {}

  @Get()
  @Header('content-type', SCIM_MEDIA_TYPE)
  async list(@Req() request: FastifyRequest, @Query() query: SkippedQuery) {
    const { companyId } = scimCallerOf(request, 'users:read');
    const { filter, startIndex, count } = listQuery(query, MAX_RESULTS);
    const { members, total } = await pageOfProvisionedMembers(this.dataSource.manager, companyId, {
      email: filter === undefined ? undefined : parseUserFilter(filter).userName,
      offset: startIndex - 1,
      limit: count,
    });
    const baseUrl = scimBaseUrl(request);
    return listResponse(
      members.map((member) => userResource(member, baseUrl)),
      total,
      startIndex,
    );
  }

  @Get(':id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  async get(@Req() request: FastifyRequest, @Param('id') id: string, @Query() _ignored: SkippedQuery) {
    const { companyId } = scimCallerOf(request, 'users:read');
    const member = await findProvisionedMember(this.dataSource.manager, companyId, userIdOf(id));
    if (!member) throw ScimError.notFound();
    return userResource(member, scimBaseUrl(request));
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
    const member = await this.users.create(
      scimCallerOf(request, 'users:write'),
      parseUserResource(body),
      clientOf(request),
    );
    const resource = userResource(member, scimBaseUrl(request));
    void reply.header('location', resource.meta.location);
    return resource;
  }

  @Put(':id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  async replace(
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() _ignored: SkippedQuery,
  ) {
    const employeeId = userIdOf(id);
    const member = await this.users.update(
      scimCallerOf(request, 'users:write'),
      employeeId,
      parseUserResource(body),
      clientOf(request),
    );
    return userResource(member, scimBaseUrl(request));
  }

  @Patch(':id')
  @Header('content-type', SCIM_MEDIA_TYPE)
  async patch(
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() _ignored: SkippedQuery,
  ) {
    const employeeId = userIdOf(id);
    const caller = scimCallerOf(request, 'users:write');
    const member = await this.users.update(caller, employeeId, parsePatch(body), clientOf(request));
    return userResource(member, scimBaseUrl(request));
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Query() _ignored: SkippedQuery,
  ): Promise<void> {
    await this.users.remove(scimCallerOf(request, 'users:write'), userIdOf(id), clientOf(request));
  }
}
