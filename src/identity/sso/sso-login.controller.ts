import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConsumes,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../access/rules/auth.decorator';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { FormBody } from '../../platform/common/http/form-body';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { AppConfig } from '../../platform/config/app-config';
import { LoginResultDto } from '../sessions/dto/login-result.dto';
import { BackchannelLogoutService } from './backchannel-logout.service';
import { bindingCookie, bindingFor, bindingHash, bindingOf } from './browser-binding';
import { BackchannelLogoutDto, SsoExchangeDto, SsoStartDto, SsoStartResultDto } from './dto/sso.dto';
import { redirectUriOf } from './redirect-uri';
import { SsoCallbackService } from './sso-callback.service';
import { SsoLoginService } from './sso-login.service';
import { RevocationPriority, SignInPriority } from '../../access/rules/load-priority.decorator';

const BINDING_COOKIE = {
  'set-cookie': {
    description: 'The HttpOnly, SameSite=Lax cookie (Secure over https) binding the sign-in to this browser',
    schema: { type: 'string' },
  },
};

/** Signing in through the company's identity provider, and the provider's back-channel logout. */
@ApiTags('sso')
@Controller({ path: 'sso', version: '1' })
export class SsoLoginController {
  constructor(
    private readonly sso: SsoLoginService,
    private readonly callbacks: SsoCallbackService,
    private readonly backchannel: BackchannelLogoutService,
    private readonly config: AppConfig,
  ) {}

  /** Whether this service is reached over https (its public URL's scheme): the binding cookie is Secure then. */
  private secure(request: FastifyRequest): boolean {
    return redirectUriOf(request, this.config)?.startsWith('https:') ?? true;
  }

  @SignInPriority()
  @Post('start')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Start a sign-in through the company's provider: the URL to send the browser to" })
  @NoStore()
  @ApiOkResponse({ type: SsoStartResultDto, headers: { ...NO_STORE_HEADERS, ...BINDING_COOKIE } })
  @ApiNotFoundResponse({ description: 'error_not_found: no connection', type: ErrorBodySchema })
  @ApiServiceUnavailableResponse({
    description: 'error_service_unavailable: the provider, or PUBLIC_URL unset in production',
    type: ErrorBodySchema,
  })
  async start(
    @Body() body: SsoStartDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SsoStartResultDto> {
    const secure = this.secure(request);
    const binding = bindingFor(request, secure);
    const started = await this.sso.start(body, redirectUriOf(request, this.config), bindingHash(binding));
    void reply.header('set-cookie', bindingCookie(binding, secure));
    return started;
  }

  @SignInPriority()
  @Get('callback')
  @Public()
  @ApiOperation({
    summary: 'The redirect URI registered at the provider: 303 to return_to with #sso_code=… or #sso_error=…',
  })
  @ApiResponse({ status: HttpStatus.SEE_OTHER, description: 'to return_to, the outcome in the fragment' })
  @ApiBadRequestResponse({ description: 'error_login_ticket_invalid: unknown state', type: ErrorBodySchema })
  async callback(
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Client() client: ClientInfo,
  ): Promise<void> {
    const search = new URL(request.url, 'http://callback.invalid').search;
    const browser = bindingHash(bindingOf(request, this.secure(request)));
    const location = await this.callbacks.callback(query, search, browser, client);
    // The code must not leak: not cached, and not sent on as a Referer by the page it lands on.
    await reply
      .code(HttpStatus.SEE_OTHER)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('location', location)
      .send();
  }

  @SignInPriority()
  @Post('exchange')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'The one-time sso_code → the login result (a session with method "sso")' })
  @NoStore()
  @ApiOkResponse({ type: LoginResultDto, headers: NO_STORE_HEADERS })
  @ApiBadRequestResponse({
    description: 'error_login_ticket_invalid (also from another browser than the one that started the sign-in)',
    type: ErrorBodySchema,
  })
  @ApiForbiddenResponse({ description: 'error_company_not_member; error_ip_not_allowed', type: ErrorBodySchema })
  exchange(
    @Body() body: SsoExchangeDto,
    @Req() request: FastifyRequest,
    @Client() client: ClientInfo,
  ): Promise<LoginResultDto> {
    return this.sso.exchange(body.sso_code, bindingHash(bindingOf(request, this.secure(request))), client);
  }

  @RevocationPriority()
  @Post('backchannel-logout')
  @Public()
  @FormBody()
  @HttpCode(HttpStatus.OK)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({ summary: 'OpenID Connect Back-Channel Logout: the provider ends the sessions it opened' })
  @ApiOkResponse({ description: 'The matching sessions ended on every instance' })
  @ApiBadRequestResponse({
    description: 'error_validation: the logout token is not valid; error_bad_request',
    type: ErrorBodySchema,
  })
  async backchannelLogout(@Body() body: BackchannelLogoutDto, @Client() client: ClientInfo): Promise<void> {
    await this.backchannel.logout(body.logout_token, client);
  }
}
