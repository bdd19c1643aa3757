import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { PageQueryDto } from '../../platform/common/http/pagination';
import { isUuid } from '../../platform/common/http/uuid';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { CreatedScimTokenDto, CreateScimTokenDto, ScimTokenPageDto } from './dto/scim-token.dto';
import { ScimTokensService } from './scim-tokens.service';

/** The bearer tokens a company's identity provider provisions staff with at /scim/v2 (docs/contract.md). */
@ApiTags('scim')
@RateLimit({ group: 'scim' })
@Controller({ path: 'scim/tokens', version: '1' })
export class ScimTokensController {
  constructor(private readonly tokens: ScimTokensService) {}

  @Post()
  @Auth({ permission: '*', jwtOnly: true, stepUp: true })
  @ApiOperation({
    summary: 'Issue a SCIM token for this company',
    description:
      'The identity provider sends it as `Authorization: Bearer <token>` to `/scim/v2` (SCIM 2.0, RFC 7644). ' +
      'The token is shown only in this answer and stored as its SHA-256. Whoever controls the directory speaks ' +
      'for every member, so it takes `*`; the token holds what its creator holds now (nothing once they leave).',
  })
  @NoStore()
  @ApiCreatedResponse({ type: CreatedScimTokenDto, headers: NO_STORE_HEADERS })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateScimTokenDto,
    @Client() client: ClientInfo,
  ): Promise<CreatedScimTokenDto> {
    return this.tokens.create(principal, body.name, client);
  }

  @Get()
  @Auth({ permission: 'sso:manage' })
  @ApiOperation({ summary: "The company's SCIM tokens (never the tokens themselves)" })
  @ApiOkResponse({ type: ScimTokenPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<ScimTokenPageDto> {
    return this.tokens.list(principal.companyId, query);
  }

  @Delete(':id')
  @Auth({ permission: 'sso:manage', jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete a SCIM token; the next SCIM request with it answers 401' })
  @ApiNoContentResponse()
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('No such SCIM token.');
    await this.tokens.remove(principal, id, client);
  }
}
