import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Put, Req } from '@nestjs/common';
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
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { AppConfig } from '../../platform/config/app-config';
import { PutSsoConnectionDto, SsoConnectionDto } from './dto/sso.dto';
import { redirectUriOf } from './redirect-uri';
import { SsoConnectionService } from './sso-connection.service';

/**
 * The current company's connection to its identity provider (docs/contract.md "Company single sign-on"). Whoever
 * controls it speaks for every member of the company: reading it is `sso:manage`, changing it (and proving its
 * domains) is `*` with a fresh proof of the person.
 */
@ApiTags('sso')
@Controller({ path: 'sso/connection', version: '1' })
export class SsoConnectionController {
  constructor(
    private readonly connections: SsoConnectionService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Auth({ permission: 'sso:manage' })
  @ApiOperation({ summary: "The current company's single sign-on connection (never its client secret)" })
  @ApiOkResponse({ type: SsoConnectionDto })
  @ApiNotFoundResponse({ description: 'error_not_found: no connection', type: ErrorBodySchema })
  get(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<SsoConnectionDto> {
    return this.connections.get(principal.companyId, redirectUriOf(request, this.config));
  }

  @Put()
  @Auth({ permission: '*', jwtOnly: true, stepUp: true })
  @ApiOperation({ summary: "Connect the company's OpenID Connect provider (its discovery document is read now)" })
  @ApiOkResponse({ type: SsoConnectionDto })
  @ApiBadRequestResponse({ description: 'error_validation (issuer unreachable or invalid)', type: ErrorBodySchema })
  @ApiConflictResponse({ description: 'error_conflict: a domain another company proved', type: ErrorBodySchema })
  put(
    @CurrentPrincipal() principal: Principal,
    @Body() body: PutSsoConnectionDto,
    @Client() client: ClientInfo,
    @Req() request: FastifyRequest,
  ): Promise<SsoConnectionDto> {
    return this.connections.put(principal, body, client, redirectUriOf(request, this.config));
  }

  @Post('domains/verify')
  @Auth({ permission: '*', jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Prove the connection's e-mail domains: their _staff-auth-challenge TXT records are looked up now",
  })
  @ApiOkResponse({ type: SsoConnectionDto, description: 'The connection; an unproven domain says why in "error"' })
  @ApiNotFoundResponse({ description: 'error_not_found: no connection', type: ErrorBodySchema })
  verifySsoDomains(
    @CurrentPrincipal() principal: Principal,
    @Client() client: ClientInfo,
    @Req() request: FastifyRequest,
  ): Promise<SsoConnectionDto> {
    return this.connections.verifyDomains(principal, client, redirectUriOf(request, this.config));
  }

  @Delete()
  @Auth({ permission: '*', jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Remove the connection: its staff sign in with passwords again' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: 'error_not_found: no connection', type: ErrorBodySchema })
  async delete(@CurrentPrincipal() principal: Principal, @Client() client: ClientInfo): Promise<void> {
    await this.connections.delete(principal, client);
  }
}
