import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import { isUuid } from '../../platform/common/http/uuid';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyListQueryDto, ApiKeyPageDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { RevocationPriority } from '../../access/rules/load-priority.decorator';

@ApiTags('apikeys')
@Controller({ path: 'apikeys', version: '1' })
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @Auth({ permission: 'apikeys:manage', jwtOnly: true, stepUp: true })
  @ApiOperation({
    summary: 'Issue an API key with a subset of your permissions; the answer carries it once, in `api_key`',
  })
  @NoStore()
  @ApiCreatedResponse({ type: CreatedApiKeyDto, headers: NO_STORE_HEADERS })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateApiKeyDto,
    @Client() client: ClientInfo,
  ): Promise<CreatedApiKeyDto> {
    return this.apiKeys.create(principal, body, client);
  }

  @Get()
  @Auth({ permission: 'apikeys:manage' })
  @ApiOperation({ summary: "The current company's API keys (never their secrets)" })
  @ApiOkResponse({ type: ApiKeyPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ApiKeyListQueryDto): Promise<ApiKeyPageDto> {
    return this.apiKeys.list(principal.companyId, query);
  }

  @RevocationPriority()
  @Delete(':id')
  @Auth({ permission: 'apikeys:manage', jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Revoke an API key; it answers error_jwt_blacklisted from then on' })
  @ApiNoContentResponse()
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('No such API key.');
    await this.apiKeys.revoke(principal, id, client);
  }
}
