import { Body, Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { LoginResultDto } from './dto/login-result.dto';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { AccountCompanyListDto, ChangeWorkingCompanyDto } from './dto/company-switch.dto';
import { CompanySwitchService } from './company-switch.service';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { SignInPriority } from '../../access/rules/load-priority.decorator';

/** The working-company switch and the switcher's list; the paths sit in the `users` API group, as the source's do. */
@ApiTags('users: authentication')
@Controller({ path: 'users', version: '1' })
export class CompanySwitchController {
  constructor(private readonly workingCompany: CompanySwitchService) {}

  @SignInPriority()
  @Post('changeworkingcompany')
  @Auth({ jwtOnly: true })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Switch the session to another company of the account (at most 10 per 60 s per employee)',
    description:
      'The previous token is blacklisted; the session and its login time are kept. A session opened through a ' +
      "company's identity provider enters only companies whose own connection has that issuer and has proven the " +
      "e-mail's domain.",
  })
  @NoStore()
  @ApiOkResponse({ type: LoginResultDto, headers: NO_STORE_HEADERS })
  @ApiForbiddenResponse({
    description: 'error_company_not_member; error_sso_required; error_login_method_not_accepted; error_ip_not_allowed',
    type: ErrorBodySchema,
  })
  @ApiTooManyRequestsResponse({
    description: 'More than 10 switches within 60 seconds by this employee (body in the object form)',
    example: { error: ['error_rate_limit_exceed'], message: 'Too many company switches; try again later.' },
  })
  changeWorkingCompany(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangeWorkingCompanyDto,
    @Client() client: ClientInfo,
  ): Promise<LoginResultDto> {
    return this.workingCompany.switchCompany(principal, body.company_id, client);
  }

  @Get('companies')
  @Auth({ jwtOnly: true })
  @ApiOperation({ summary: "The account's companies, the token's own marked current (for a company switcher)" })
  @ApiOkResponse({ type: AccountCompanyListDto })
  async listCompanies(@CurrentPrincipal() principal: Principal): Promise<AccountCompanyListDto> {
    return { companies: await this.workingCompany.companiesOf(principal) };
  }
}
