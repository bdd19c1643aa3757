import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { Public } from '../../access/rules/auth.decorator';
import { ApiFailedLoginLock } from '../auth/login-lock-openapi';
import { CredentialsDto, LOGIN_EXAMPLES, LoginDto } from './dto/credentials.dto';
import { CompanyListDto, LoginResultDto } from './dto/login-result.dto';
import { LoginService } from './login.service';
import { SignInPriority } from '../../access/rules/load-priority.decorator';

/** docs/contract.md: 10 failed logins for one e-mail within 15 minutes lock it; the object-form 429 (source §7). */
/** The two-step login; part of the `users` API group, as the source's paths say. */
@ApiTags('users: authentication')
@Controller({ path: 'users', version: '1' })
export class LoginController {
  constructor(private readonly login: LoginService) {}

  @SignInPriority()
  @Post('authenticateinit')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Login step 1: the companies the account belongs to' })
  @ApiOkResponse({ type: CompanyListDto })
  @ApiUnauthorizedResponse({ description: 'error_invalid_credentials', type: ErrorBodySchema })
  @ApiFailedLoginLock()
  async authenticateInit(@Body() body: CredentialsDto, @Client() client: ClientInfo): Promise<CompanyListDto> {
    const { companies, otpRequired } = await this.login.listCompanies(body.email, body.password, client);
    return { companies, otp_required: otpRequired };
  }

  @SignInPriority()
  @Post('authenticatefinish')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Login step 2: a token bound to the chosen company and a new login session',
    description:
      'With the e-mail and password (and the second factor when TOTP is on), or with the `login_ticket` of a ' +
      'passkey login (a passkey is both factors: no TOTP asked; the session’s method is `passkey`).',
  })
  @NoStore()
  // Named examples, the password login first: Swagger UI's "Try it out" starts from the first one, and the
  // schema's per-field examples alone would mix the password login and a passkey's login_ticket (a 400).
  @ApiBody({ type: LoginDto, examples: LOGIN_EXAMPLES })
  @ApiOkResponse({ type: LoginResultDto, headers: NO_STORE_HEADERS })
  @ApiUnauthorizedResponse({
    description:
      'error_invalid_credentials; error_otp_required (TOTP on, no code sent); error_otp_invalid (wrong or used code)',
    type: ErrorBodySchema,
  })
  @ApiBadRequestResponse({
    description: 'error_login_ticket_invalid: the login_ticket is unknown, used or expired (60 seconds)',
    type: ErrorBodySchema,
  })
  @ApiForbiddenResponse({
    description: 'error_company_not_member; error_sso_required; error_ip_not_allowed',
    type: ErrorBodySchema,
  })
  @ApiFailedLoginLock()
  authenticateFinish(@Body() body: LoginDto, @Client() client: ClientInfo): Promise<LoginResultDto> {
    if (body.login_ticket !== undefined) {
      const mixed = (['email', 'password', 'otp', 'recovery_code'] as const).filter((f) => body[f] !== undefined);
      if (mixed.length > 0) {
        throw ApiError.validation(
          'Send either login_ticket or the credentials, not both.',
          mixed.map((field) => ({ field, message: `${field} cannot be sent with login_ticket` })),
        );
      }
      return this.login.loginWithTicket(body.login_ticket, body.company_id, client);
    }
    return this.login.login(body.email!, body.password!, body.company_id, client, {
      otp: body.otp,
      recovery_code: body.recovery_code,
    });
  }
}
