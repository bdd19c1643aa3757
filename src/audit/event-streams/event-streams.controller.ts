import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { PageQueryDto } from '../../platform/common/http/pagination';
import { isUuid } from '../../platform/common/http/uuid';
import {
  CreatedEventStreamDto,
  CreateEventStreamDto,
  EventStreamDeliveryPageDto,
  EventStreamPageDto,
} from './dto/event-stream.dto';
import { EventStreamsService } from './event-streams.service';

@ApiTags('auditevents')
@Controller({ path: 'auditevents/streams', version: '1' })
export class EventStreamsController {
  constructor(private readonly streams: EventStreamsService) {}

  @Post()
  @Auth({ permission: 'auditevents:read', jwtOnly: true })
  @ApiOperation({
    operationId: 'createEventStream',
    summary: "Stream the company's security events to a URL (Standard Webhooks signatures)",
    description:
      'Every event of the company from now on is POSTed to `url` as JSON `{"type", "timestamp", "data": <the ' +
      'event as GET /v1/auditevents shows it>}`, signed as the Standard Webhooks specification says (`webhook-id`, ' +
      '`webhook-timestamp`, `webhook-signature` with the returned secret), at least once, in event order, retried ' +
      'with backoff for 24 hours before the stream is paused. The URL must resolve to public addresses only ' +
      '(400 error_validation naming `url` otherwise).',
  })
  @NoStore()
  @ApiCreatedResponse({ type: CreatedEventStreamDto, headers: NO_STORE_HEADERS })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateEventStreamDto): Promise<CreatedEventStreamDto> {
    return this.streams.create(principal.companyId, body.url);
  }

  @Get()
  @Auth({ permission: 'auditevents:read' })
  @ApiOperation({ operationId: 'listEventStreams', summary: "The company's event streams and their state" })
  @ApiOkResponse({ type: EventStreamPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<EventStreamPageDto> {
    return this.streams.list(principal.companyId, query);
  }

  @Delete(':id')
  @Auth({ permission: 'auditevents:read', jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ operationId: 'deleteEventStream', summary: 'Stop a stream; its pending deliveries are dropped' })
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('No such stream.');
    await this.streams.remove(principal.companyId, id);
  }

  @Get(':id/deliveries')
  @Auth({ permission: 'auditevents:read' })
  @ApiOperation({
    operationId: 'listEventStreamDeliveries',
    summary: "A stream's recent delivery attempts, newest first, with status and error",
  })
  @ApiOkResponse({ type: EventStreamDeliveryPageDto })
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: PageQueryDto,
  ): Promise<EventStreamDeliveryPageDto> {
    if (!isUuid(id)) throw ApiError.notFound('No such stream.');
    return this.streams.deliveries(principal.companyId, id, query);
  }
}
