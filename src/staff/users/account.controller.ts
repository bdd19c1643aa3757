import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal, Public } from '../../access/rules/auth.decorator';
import { ApiFailedLoginLock } from '../../identity/auth/login-lock-openapi';
import type { Principal } from '../../access/rules/principal';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { AccountMfaService } from './account-mfa.service';
import { AccountPasswordService } from './account-password.service';
import {
  ChangePasswordDto,
  CurrentPasswordDto,
  DisableTotpDto,
  OtpDto,
  ResetPasswordDto,
  TotpEnrolmentDto,
} from './dto/account.dto';

const WRONG_PASSWORD = {
  description: 'error_invalid_credentials: the current password is wrong (counts as a failed login)',
  type: ErrorBodySchema,
};

/** One's own account: password and TOTP; and the public end of a password reset. */
@ApiTags('users: account')
@Controller({ path: 'users', version: '1' })
export class AccountController {
  constructor(
    private readonly passwords: AccountPasswordService,
    private readonly mfa: AccountMfaService,
  ) {}

  @Post('me/password')
  @ApiFailedLoginLock()
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Change your password; every other session of the account ends' })
  @ApiNoContentResponse({ description: 'Changed' })
  @ApiUnauthorizedResponse(WRONG_PASSWORD)
  async changePassword(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangePasswordDto,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.passwords.change(principal, body.current_password, body.new_password, client);
  }

  @Post('passwordreset')
  @Public()
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Set a new password with a reset code; every session of the account ends, TOTP stays as it was',
  })
  @ApiNoContentResponse({ description: 'Changed' })
  @ApiBadRequestResponse({
    description: 'error_reset_code_invalid: unknown, used or expired code, or a code for another e-mail',
    type: ErrorBodySchema,
  })
  async resetPassword(@Body() body: ResetPasswordDto, @Client() client: ClientInfo): Promise<void> {
    await this.passwords.resetWithCode(body.email, body.code, body.new_password, client);
  }

  @Post('me/mfa/totp')
  @ApiFailedLoginLock()
  @Auth({ jwtOnly: true })
  @NoStore()
  @ApiOperation({
    summary: 'Start TOTP set-up: the secret, its otpauth URI and 10 recovery codes, shown once',
    description: 'TOTP is not on until confirmed with a code (POST /v1/users/me/mfa/totp/confirm).',
  })
  @ApiCreatedResponse({ type: TotpEnrolmentDto, headers: NO_STORE_HEADERS })
  @ApiUnauthorizedResponse(WRONG_PASSWORD)
  enrolTotp(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CurrentPasswordDto,
    @Client() client: ClientInfo,
  ): Promise<TotpEnrolmentDto> {
    return this.mfa.enrol(principal, body.current_password, client);
  }

  @Post('me/mfa/totp/confirm')
  @ApiFailedLoginLock()
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Turn TOTP on with a code from the app; every other session of the account ends' })
  @ApiNoContentResponse({ description: 'TOTP is on' })
  @ApiUnauthorizedResponse({ description: 'error_otp_invalid: wrong, used or stale code', type: ErrorBodySchema })
  async confirmTotp(
    @CurrentPrincipal() principal: Principal,
    @Body() body: OtpDto,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.mfa.confirm(principal, body.otp, client);
  }

  @Post('me/mfa/totp/disable')
  @ApiFailedLoginLock()
  @Auth({ jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Turn TOTP off, with your password and a current code' })
  @ApiNoContentResponse({ description: 'TOTP is off' })
  @ApiUnauthorizedResponse({
    description: 'error_invalid_credentials (wrong password); error_otp_invalid (wrong, used or stale code)',
    type: ErrorBodySchema,
  })
  async disableTotp(
    @CurrentPrincipal() principal: Principal,
    @Body() body: DisableTotpDto,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.mfa.disable(principal, body.current_password, body.otp, client);
  }
}
