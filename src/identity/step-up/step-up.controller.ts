import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ApiFailedLoginLock } from '../auth/login-lock-openapi';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { ReauthenticateDto } from './dto/reauthenticate.dto';
import { StepUpService } from './step-up.service';

@ApiTags('users: account')
@Controller({ path: 'users', version: '1' })
export class StepUpController {
  constructor(private readonly stepUp: StepUpService) {}

  @Post('me/reauthenticate')
  @ApiFailedLoginLock()
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Prove who you are again: step-up routes then admit this session for 15 minutes',
    description:
      'With the password (and `otp` when TOTP is on), or with a passkey. A refresh or a company switch does ' +
      'not renew the proof; a wrong answer counts as a failed login.',
  })
  @ApiNoContentResponse({ description: 'The session counts as proven for 15 minutes' })
  @ApiUnauthorizedResponse({
    description:
      'error_invalid_credentials (wrong password, or a passkey that does not verify or is not yours); ' +
      'error_otp_required (TOTP on, no code sent); error_otp_invalid (wrong or used code)',
    type: ErrorBodySchema,
  })
  @ApiBadRequestResponse({
    description: 'error_login_ticket_invalid: the passkey challenge is unknown, used or expired',
    type: ErrorBodySchema,
  })
  async reauthenticate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ReauthenticateDto,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.stepUp.reauthenticate(principal, body, client);
  }
}
