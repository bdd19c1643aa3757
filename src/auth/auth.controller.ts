import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/api-error';
import { ErrorBodySchema } from '../common/errors/error-body.schema';
import { Auth, CurrentPrincipal, Public } from './auth.decorator';
import { CredentialService } from './credentials/credential.service';
import type { Principal } from './credentials/principal';
import { ChangeWorkingCompanyDto, CredentialsDto, LoginDto, RefreshTokenDto } from './dto/credentials.dto';
import { CompanyListDto, LoginResultDto, SessionListDto } from './dto/login-result.dto';
import { LoginService } from './login.service';
import { SessionService } from './sessions/session.service';

const clientOf = (request: FastifyRequest) => ({
  ip: request.ip,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

/** Login, tokens and sessions: part of the `users` API group, as the source's paths say. */
@ApiTags('users: authentication')
@Controller({ path: 'users', version: '1' })
export class AuthController {
  constructor(
    private readonly login: LoginService,
    private readonly sessions: SessionService,
  ) {}

  @Post('authenticateinit')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Login step 1: the companies the account belongs to' })
  @ApiOkResponse({ type: CompanyListDto })
  @ApiUnauthorizedResponse({ description: 'error_invalid_credentials', type: ErrorBodySchema })
  @ApiTooManyRequestsResponse({ description: 'error_rate_limit_exceed: too many failed logins for this e-mail' })
  async authenticateInit(@Body() body: CredentialsDto): Promise<CompanyListDto> {
    return { companies: await this.login.listCompanies(body.email, body.password) };
  }

  @Post('authenticatefinish')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Login step 2: a token bound to the chosen company and a new login session' })
  @ApiOkResponse({ type: LoginResultDto })
  @ApiUnauthorizedResponse({ description: 'error_invalid_credentials', type: ErrorBodySchema })
  @ApiForbiddenResponse({ description: 'error_company_not_member', type: ErrorBodySchema })
  @ApiTooManyRequestsResponse({ description: 'error_rate_limit_exceed: too many failed logins for this e-mail' })
  authenticateFinish(@Body() body: LoginDto, @Req() request: FastifyRequest): Promise<LoginResultDto> {
    return this.login.login(body.email, body.password, body.company_id, clientOf(request));
  }

  @Post('refreshtoken')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Renew a token: the previous token is blacklisted and its refresh token used up',
    description:
      'Checks, in order: error_refresh_token_invalid (401), error_jwt_blacklisted (400), error_session_max_age ' +
      '(400, more than 30 days since login), error_jwt_expired (400). A used refresh token presented again more ' +
      'than 10 s after its use ends the whole session.',
  })
  @ApiOkResponse({ type: LoginResultDto })
  @ApiUnauthorizedResponse({ description: 'error_refresh_token_invalid', type: ErrorBodySchema })
  refresh(@Body() body: RefreshTokenDto): Promise<LoginResultDto> {
    return this.sessions.refresh(body.refresh_token);
  }

  @Post('logout')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'End the login session; its tokens are blacklisted' })
  @ApiNoContentResponse()
  async logout(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.sessions.logout(principal);
  }

  @Post('changeworkingcompany')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Switch the session to another company of the account (at most 10 per 60 s per employee)',
    description: 'The previous token is blacklisted; the session and its login time are kept.',
  })
  @ApiOkResponse({ type: LoginResultDto })
  @ApiForbiddenResponse({ description: 'error_company_not_member', type: ErrorBodySchema })
  @ApiTooManyRequestsResponse({
    description: 'Body `{"error": ["error_rate_limit_exceed"], "message": "..."}` with Retry-After',
  })
  changeWorkingCompany(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangeWorkingCompanyDto,
  ): Promise<LoginResultDto> {
    return this.sessions.switchCompany(principal, body.company_id);
  }

  @Get('sessions')
  @Auth({ jwtOnly: true })
  @ApiOperation({ summary: "The caller's active login sessions" })
  @ApiOkResponse({ type: SessionListDto })
  async listSessions(@CurrentPrincipal() principal: Principal): Promise<SessionListDto> {
    return { sessions: await this.sessions.list(principal) };
  }

  @Delete('sessions/:id')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: "End one of the caller's sessions; its tokens are blacklisted",
    description: 'Ending an already ended session again answers 204 too; another employee\'s session is 404.',
  })
  @ApiNoContentResponse()
  async revokeSession(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    if (!CredentialService.isUuid(id)) throw ApiError.notFound('No such session.');
    await this.sessions.revokeOwn(principal, id);
  }
}
