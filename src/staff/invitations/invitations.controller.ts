import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal, Public } from '../../access/rules/auth.decorator';
import { ApiFailedLoginLock } from '../../identity/auth/login-lock-openapi';
import { isUuid } from '../../platform/common/http/uuid';
import type { Principal } from '../../access/rules/principal';
import { LoginResultDto } from '../../identity/sessions/dto/login-result.dto';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { PageQueryDto } from '../../platform/common/http/pagination';
import {
  AcceptInvitationDto,
  CreatedInvitationDto,
  CreateInvitationDto,
  InvitationPageDto,
} from './dto/invitation.dto';
import { InvitationsService } from './invitations.service';

@ApiTags('users: invitations')
@Controller({ path: 'users/invitations', version: '1' })
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post()
  @Auth({ permission: 'users:write', jwtOnly: true })
  @NoStore()
  @ApiOperation({
    summary: 'Invite someone into the current company with permissions you hold; the code is shown once',
    description: 'The code is valid 7 days, once, and can be revoked. Only its hash is stored.',
  })
  @ApiCreatedResponse({ type: CreatedInvitationDto, headers: NO_STORE_HEADERS })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateInvitationDto,
    @Client() client: ClientInfo,
  ): Promise<CreatedInvitationDto> {
    return this.invitations.create(principal, body, client);
  }

  @Get()
  @Auth({ permission: 'users:read' })
  @ApiOperation({ summary: "The current company's open invitations, newest first (never their codes)" })
  @ApiOkResponse({ type: InvitationPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<InvitationPageDto> {
    return this.invitations.list(principal.companyId, query);
  }

  @Delete(':id')
  @Auth({ permission: 'users:write', jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Revoke an open invitation: its code stops working' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Revoked' })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('No such open invitation.');
    await this.invitations.revoke(principal, id, client);
  }

  @Post('accept')
  @Public()
  @HttpCode(HttpStatus.OK)
  @NoStore()
  @ApiOperation({
    summary: 'Accept an invitation: join the inviting company and log in to it',
    description:
      'An existing account proves itself with its password (and `otp` or `recovery_code` when TOTP is on), ' +
      'counted by the login lock; a new e-mail creates the account with that password and `name`.',
  })
  @ApiOkResponse({ type: LoginResultDto, headers: NO_STORE_HEADERS })
  @ApiBadRequestResponse({
    description: 'error_invitation_invalid: unknown, used, expired or revoked code, or a code for another e-mail',
    type: ErrorBodySchema,
  })
  @ApiUnauthorizedResponse({
    description: 'error_invalid_credentials; error_otp_required; error_otp_invalid (an existing account)',
    type: ErrorBodySchema,
  })
  @ApiForbiddenResponse({
    description:
      'error_sso_required: the company signs in through its provider only; error_ip_not_allowed: not from this ' +
      "address (the company's ip_allowlist)",
    type: ErrorBodySchema,
  })
  @ApiFailedLoginLock()
  accept(@Body() body: AcceptInvitationDto, @Client() client: ClientInfo): Promise<LoginResultDto> {
    return this.invitations.accept(body, client);
  }
}
