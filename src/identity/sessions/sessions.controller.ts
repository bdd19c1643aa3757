import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal, Public } from '../../access/rules/auth.decorator';
import { isUuid } from '../../platform/common/http/uuid';
import type { Principal } from '../../access/rules/principal';
import { LoginResultDto } from './dto/login-result.dto';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { RefreshTokenDto, SessionListDto } from './dto/sessions.dto';
import { SessionService } from './session.service';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { RevocationPriority, SignInPriority } from '../../access/rules/load-priority.decorator';

/** Login sessions after login: refresh rotation, logout, listing and revocation; in the `users` API group. */
@ApiTags('users: authentication')
@Controller({ path: 'users', version: '1' })
export class SessionsController {
  constructor(private readonly sessions: SessionService) {}

  @SignInPriority()
  @Post('refreshtoken')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    operationId: 'refreshToken',
    summary: 'Renew a token: the previous token is blacklisted and its refresh token used up',
    description:
      'Checks, in order: error_refresh_token_invalid (401), error_jwt_blacklisted (400), error_session_max_age ' +
      '(400, more than 30 days since login), error_jwt_expired (400). A used refresh token presented again more ' +
      'than 10 s after its use ends the whole session. A session its company no longer admits (single sign-on ' +
      'required since it began, or its provider no longer trusted there) is not renewed: 403.',
  })
  @NoStore()
  @ApiOkResponse({ type: LoginResultDto, headers: NO_STORE_HEADERS })
  @ApiUnauthorizedResponse({ description: 'error_refresh_token_invalid', type: ErrorBodySchema })
  @ApiForbiddenResponse({
    description: 'error_sso_required; error_login_method_not_accepted; error_ip_not_allowed',
    type: ErrorBodySchema,
  })
  @ApiBadRequestResponse({
    description:
      'error_jwt_blacklisted (the session has ended), error_session_max_age (more than 30 days since login), ' +
      'error_jwt_expired (the token of this refresh token has expired)',
    type: ErrorBodySchema,
  })
  refresh(@Body() body: RefreshTokenDto, @Client() client: ClientInfo): Promise<LoginResultDto> {
    return this.sessions.refresh(body.refresh_token, client);
  }

  @RevocationPriority()
  @Post('logout')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'End the login session; its tokens are blacklisted' })
  @ApiNoContentResponse()
  async logout(@CurrentPrincipal() principal: Principal, @Client() client: ClientInfo): Promise<void> {
    await this.sessions.logout(principal, client);
  }

  @Get('sessions')
  @Auth({ jwtOnly: true })
  @ApiOperation({ summary: "The caller's active login sessions" })
  @ApiOkResponse({ type: SessionListDto })
  async listSessions(@CurrentPrincipal() principal: Principal): Promise<SessionListDto> {
    return { sessions: await this.sessions.list(principal) };
  }

  @RevocationPriority()
  @Delete('sessions/:id')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: "End one of the caller's sessions; its tokens are blacklisted",
    description: "Ending an already ended session again answers 204 too; another employee's session is 404.",
  })
  @ApiNoContentResponse()
  async revokeSession(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('No such session.');
    await this.sessions.revokeOwn(principal, id, client);
  }
}
