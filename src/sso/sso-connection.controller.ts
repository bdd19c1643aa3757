import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Put, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentPrincipal } from '../auth/auth.decorator';
import type { Principal } from '../auth/credentials/principal';
import { ErrorBodySchema } from '../common/errors/error-body.schema';
import { Client, type ClientInfo } from '../common/http/client-info';
import { PutSsoConnectionDto, SsoConnectionDto } from './dto/sso.dto';
import { redirectUriOf } from './redirect-uri';
import { SsoConnectionService } from './sso-connection.service';

/** The current company's connection to its identity provider (docs/contract.md "Company single sign-on"). */
@ApiTags('sso')
@Controller({ path: 'sso/connection', version: '1' })
export class SsoConnectionController {
  constructor(private readonly connections: SsoConnectionService) {}

  @Get()
  @Auth({ permission: 'sso:manage' })
  @ApiOperation({ summary: "The current company's single sign-on connection (never its client secret)" })
  @ApiOkResponse({ type: SsoConnectionDto })
  @ApiNotFoundResponse({ description: 'error_not_found: no connection', type: ErrorBodySchema })
  get(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<SsoConnectionDto> {
    return this.connections.get(principal.companyId, redirectUriOf(request));
  }

  @Put()
  @Auth({ permission: 'sso:manage', jwtOnly: true, stepUp: true })
  @ApiOperation({ summary: "Connect the company's OpenID Connect provider (its discovery document is read now)" })
  @ApiOkResponse({ type: SsoConnectionDto })
  @ApiBadRequestResponse({ description: 'error_validation (issuer unreachable or invalid)', type: ErrorBodySchema })
  @ApiConflictResponse({ description: 'error_conflict: an e-mail domain of another company', type: ErrorBodySchema })
  put(
    @CurrentPrincipal() principal: Principal,
    @Body() body: PutSsoConnectionDto,
    @Client() client: ClientInfo,
    @Req() request: FastifyRequest,
  ): Promise<SsoConnectionDto> {
    return this.connections.put(principal, body, client, redirectUriOf(request));
  }

  @Delete()
  @Auth({ permission: 'sso:manage', jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Remove the connection: its staff sign in with passwords again' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: 'error_not_found: no connection', type: ErrorBodySchema })
  async delete(@CurrentPrincipal() principal: Principal, @Client() client: ClientInfo): Promise<void> {
    await this.connections.delete(principal, client);
  }
}
