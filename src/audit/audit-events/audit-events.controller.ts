import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { AuditEventsService } from '../recorder/audit-events.service';
import { AuditEventPageDto, AuditEventQueryDto } from '../recorder/dto/audit-events.dto';

@ApiTags('auditevents')
@Controller({ path: 'auditevents', version: '1' })
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get()
  @Auth({ permission: 'auditevents:read' })
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: "The current company's security events, newest first",
    description:
      'Logins and failed logins, token refreshes, session ends, company switches, API keys, permissions, ' +
      'memberships and passwords (docs/contract.md, "Security events"). Keyset paging: pass `next_cursor` as ' +
      '`?cursor=` with the same filters; events recorded meanwhile neither repeat nor shift later pages. An ' +
      'unknown parameter, a malformed cursor or time, or a limit outside 1–100 answers 400 error_validation.',
  })
  @ApiOkResponse({ type: AuditEventPageDto, description: 'One page of events, newest first' })
  list(@CurrentPrincipal() principal: Principal, @Query() query: AuditEventQueryDto): Promise<AuditEventPageDto> {
    return this.events.page(principal.companyId, query);
  }
}
