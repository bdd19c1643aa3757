import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Put, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { PageQueryDto } from '../../platform/common/http/pagination';
import { ApiRecordId, RecordId } from '../../platform/common/http/record-id';
import { RoleDto, RoleInputDto, RolePageDto } from './dto/role.dto';
import { NO_SUCH_ROLE, RolesService } from './roles.service';

const NAME_TAKEN = { description: 'error_conflict: another role of the company has that name', type: ErrorBodySchema };

/** /v1/roles: the company's named permission sets (docs/contract.md "Company policies and roles"). */
@ApiTags('roles')
@Controller({ path: 'roles', version: '1' })
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @Auth({ permission: 'users:read' })
  @ApiOperation({ operationId: 'listRoles', summary: "The current company's roles, a page at a time" })
  @ApiOkResponse({ type: RolePageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<RolePageDto> {
    return this.roles.list(principal.companyId, query);
  }

  @Post()
  @Auth({ permission: 'users:write' })
  @ApiOperation({
    operationId: 'createRole',
    summary: 'Create a role (only with permissions the caller holds)',
  })
  @ApiCreatedResponse({ type: RoleDto })
  @ApiConflictResponse(NAME_TAKEN)
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RoleInputDto,
    @Client() client: ClientInfo,
  ): Promise<RoleDto> {
    return this.roles.create(principal, body, client);
  }

  @Put(':id')
  @Auth({ permission: 'users:write', stepUp: true })
  @ApiOperation({
    operationId: 'replaceRole',
    summary: "Rename a role and replace its permissions; every holder's effective permissions follow",
    description:
      'The new set must be one the caller holds, and so must the current one. Credentials of every holder, on ' +
      'every instance, use the new set from their next request; their API keys are capped by it.',
  })
  @ApiRecordId('role')
  @ApiOkResponse({ type: RoleDto })
  @ApiConflictResponse(NAME_TAKEN)
  replace(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NO_SUCH_ROLE) id: number,
    @Body() body: RoleInputDto,
    @Client() client: ClientInfo,
  ): Promise<RoleDto> {
    return this.roles.replace(principal, id, body, client);
  }

  @Delete(':id')
  @Auth({ permission: 'users:write' })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ operationId: 'deleteRole', summary: 'Delete a role nobody holds' })
  @ApiRecordId('role')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiConflictResponse({ description: 'error_conflict: members hold the role', type: ErrorBodySchema })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NO_SUCH_ROLE) id: number,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.roles.remove(principal, id, client);
  }
}
