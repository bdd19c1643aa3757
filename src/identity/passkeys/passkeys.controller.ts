import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal, Public } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ApiFailedLoginLock } from '../auth/login-lock-openapi';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { isUuid } from '../../platform/common/http/uuid';
import {
  AddPasskeyDto,
  PasskeyAssertionDto,
  PasskeyDto,
  PasskeyListDto,
  PasskeyLoginTicketDto,
  PasskeyOptionsDto,
} from './dto/passkeys.dto';
import { PasskeyAssertionService } from './passkey-assertion.service';
import { PasskeyRegistrationService } from './passkey-registration.service';
import { SignInPriority } from '../../access/rules/load-priority.decorator';

const STALE_CHALLENGE = {
  description: 'error_login_ticket_invalid: the challenge is unknown, used or expired (5 minutes)',
  type: ErrorBodySchema,
};

/** docs/contract.md, Passkeys and step-up: one's own passkeys, and step 1 of a passkey login. */
@ApiTags('users: passkeys')
@Controller({ path: 'users', version: '1' })
export class PasskeysController {
  constructor(
    private readonly registration: PasskeyRegistrationService,
    private readonly assertion: PasskeyAssertionService,
  ) {}

  @Post('me/passkeys/options')
  @Auth({ jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Start adding a passkey: the creation options for navigator.credentials.create (5 minutes, once)',
  })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: true } })
  async creationOptions(@CurrentPrincipal() principal: Principal): Promise<Record<string, unknown>> {
    return (await this.registration.options(principal)) as unknown as Record<string, unknown>;
  }

  @Post('me/passkeys')
  @Auth({ jwtOnly: true })
  @ApiOperation({ summary: 'Add a passkey: the browser’s registration response to the last creation options' })
  @ApiCreatedResponse({ type: PasskeyDto })
  @ApiBadRequestResponse({
    description:
      'error_login_ticket_invalid: no open creation options for this response; error_validation: the response ' +
      'does not verify (origin, RP ID, user verification)',
    type: ErrorBodySchema,
  })
  add(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AddPasskeyDto,
    @Client() client: ClientInfo,
  ): Promise<PasskeyDto> {
    return this.registration.add(principal, body.name, body.response, client);
  }

  @Get('me/passkeys')
  @Auth({ jwtOnly: true })
  @ApiOperation({ summary: "The caller's passkeys, with their last use" })
  @ApiOkResponse({ type: PasskeyListDto })
  async list(@CurrentPrincipal() principal: Principal): Promise<PasskeyListDto> {
    return { passkeys: await this.registration.list(principal) };
  }

  @Delete('me/passkeys/:id')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Remove one of your passkeys; it no longer signs in' })
  @ApiNoContentResponse()
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('No such passkey.');
    await this.registration.remove(principal, id, client);
  }

  @SignInPriority()
  @Post('passkeys/options')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Passkey login, step 0: a challenge for navigator.credentials.get (5 minutes, once)' })
  @ApiOkResponse({ type: PasskeyOptionsDto })
  loginOptions(): Promise<PasskeyOptionsDto> {
    return this.assertion.options();
  }

  @SignInPriority()
  @Post('passkeys/authenticate')
  @Public()
  @HttpCode(HttpStatus.OK)
  @NoStore()
  @ApiOperation({
    summary: "Passkey login, step 1: the account's companies and a login_ticket for authenticatefinish (60 s, once)",
  })
  @ApiOkResponse({ type: PasskeyLoginTicketDto, headers: NO_STORE_HEADERS })
  @ApiBadRequestResponse(STALE_CHALLENGE)
  @ApiUnauthorizedResponse({
    description: 'error_invalid_credentials: the passkey does not verify (counts as a failed login)',
    type: ErrorBodySchema,
  })
  @ApiFailedLoginLock()
  authenticate(@Body() body: PasskeyAssertionDto, @Client() client: ClientInfo): Promise<PasskeyLoginTicketDto> {
    return this.assertion.authenticate(body.challenge_id, body.response, client);
  }
}
