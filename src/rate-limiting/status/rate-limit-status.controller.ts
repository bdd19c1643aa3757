import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { CompanyRateLimitsService } from './company-rate-limits.service';
import { CompanyRateLimitsDto } from './dto/company-rate-limits.dto';
import { RateLimitListDto } from './dto/rate-limit-list.dto';
import { RateLimitStatusService } from './rate-limit-status.service';

/**
 * The caller's rate limits (docs/contract.md, "Rate limits a client can plan with"), like GitHub's
 * `GET /rate_limit`. Asking is not charged to any bucket it lists: it counts on a bucket of its own (group
 * `ratelimits`), 30 per 3 s whatever RATE_LIMIT_SCALE says, with the usual headers and 429.
 */
@ApiTags('ratelimits')
@Controller({ path: 'ratelimits', version: '1' })
@RateLimit({ group: 'ratelimits', limits: { GET: 30 }, unscaled: true })
export class RateLimitStatusController {
  constructor(
    private readonly status: RateLimitStatusService,
    private readonly company: CompanyRateLimitsService,
  ) {}

  @Get()
  @Auth()
  @ApiOperation({
    operationId: 'listRateLimits',
    summary: "The caller's buckets: every method × group this credential can call, as they stand now",
    description:
      'One entry per method × group whose routes this credential may call (its permissions, JWT or API key), ' +
      "with the bucket's capacity and what it would admit at once right now for this caller (client address " +
      'and credential), read without counting. This request counts only on its own bucket (`GET-ratelimits`: ' +
      '30 per 3 s), never on a bucket it lists. `override` is null while the table applies.',
  })
  @ApiOkResponse({ type: RateLimitListDto })
  list(@Req() request: FastifyRequest, @CurrentPrincipal() principal: Principal): Promise<RateLimitListDto> {
    return this.status.list(request, principal);
  }

  @Get('company')
  @Auth({ permission: 'auditevents:read' })
  @ApiOperation({
    operationId: 'getCompanyRateLimits',
    summary: "The company's limits, the operator's overrides, and its credentials refused in the last hour",
    description:
      "For the administration page (read-only): every counted method × group with the table's capacity and the " +
      "company's effective one, the operator's live overrides for the company and its API keys, and which of the " +
      "company's credentials the answering instance refused (or, under a shadow override, would have) in the last " +
      'hour. Each instance keeps its own decisions in bounded memory, so behind a load balancer the list is the ' +
      "answering instance's. Needs `auditevents:read`; counts on the `ratelimits` bucket.",
  })
  @ApiOkResponse({ type: CompanyRateLimitsDto })
  ofCompany(@CurrentPrincipal() principal: Principal): CompanyRateLimitsDto {
    return this.company.of(principal.companyId);
  }
}
