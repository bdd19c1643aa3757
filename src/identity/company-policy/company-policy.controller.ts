import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { CompanyPolicyService } from './company-policy.service';
import { CompanyPolicyDto } from './dto/company-policy.dto';

/**
 * The current company's policy (docs/contract.md "Company policies and roles"): what its IT department sets once
 * for all its staff. Any member reads it; changing it is `*` with a fresh proof of the person.
 */
@ApiTags('company')
@Controller({ path: 'company/policy', version: '1' })
export class CompanyPolicyController {
  constructor(private readonly policies: CompanyPolicyService) {}

  @Get()
  @Auth()
  @ApiOperation({ summary: "The current company's policy (second factor, session length, idle time-out, networks)" })
  @ApiOkResponse({ type: CompanyPolicyDto })
  get(@CurrentPrincipal() principal: Principal): Promise<CompanyPolicyDto> {
    return this.policies.get(principal.companyId);
  }

  @Put()
  @Auth({ permission: '*', jwtOnly: true, stepUp: true })
  @ApiOperation({
    summary: "Replace the company's policy: it applies on every instance at once; sessions it refuses end",
  })
  @ApiOkResponse({ type: CompanyPolicyDto, description: 'The policy as saved (CIDRs normalised)' })
  @ApiBadRequestResponse({
    description:
      "error_validation: a value out of range, an entry that is no CIDR, or a list without the caller's address",
    type: ErrorBodySchema,
  })
  put(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CompanyPolicyDto,
    @Client() client: ClientInfo,
  ): Promise<CompanyPolicyDto> {
    return this.policies.put(principal, body, client);
  }
}
