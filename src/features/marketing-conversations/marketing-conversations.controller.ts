import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { type Page, PageQueryDto } from '../../platform/common/http/pagination';
import { ApiRecordId, RecordId } from '../../platform/common/http/record-id';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import {
  ConversationDto,
  ConversationPageDto,
  CreateConversationDto,
  CreateMessageDto,
  MessageDto,
  MessagePageDto,
} from './dto/marketing-conversations.dto';
import { CONVERSATION_NOT_FOUND, MarketingConversationsService } from './marketing-conversations.service';

// The source allows POST /v1/marketingconversations/... 60 requests per 3 s; other methods keep the table.
@RateLimit({ limits: { POST: 60 } })
@ApiTags('marketingconversations')
@Controller({ path: 'marketingconversations', version: '1' })
export class MarketingConversationsController {
  constructor(private readonly conversations: MarketingConversationsService) {}

  @Post()
  @Auth({ permission: 'marketingconversations:write' })
  @ApiOperation({ summary: 'Open a marketing conversation in the current company' })
  @ApiCreatedResponse({ type: ConversationDto })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateConversationDto): Promise<ConversationDto> {
    return this.conversations.create(principal, body);
  }

  @Get()
  @Auth({ permission: 'marketingconversations:read' })
  @ApiOperation({ summary: "The current company's marketing conversations, newest first" })
  @ApiOkResponse({ type: ConversationPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<Page<ConversationDto>> {
    return this.conversations.list(principal, query);
  }

  @Get(':id')
  @Auth({ permission: 'marketingconversations:read' })
  @ApiOperation({ summary: 'One marketing conversation of the current company' })
  @ApiRecordId('conversation')
  @ApiOkResponse({ type: ConversationDto })
  get(
    @CurrentPrincipal() principal: Principal,
    @RecordId(CONVERSATION_NOT_FOUND) id: number,
  ): Promise<ConversationDto> {
    return this.conversations.get(principal, id);
  }

  @Post(':id/messages')
  @Auth({ permission: 'marketingconversations:write' })
  @ApiOperation({ summary: 'Record a message (inbound or outbound) in a conversation of the current company' })
  @ApiRecordId('conversation')
  @ApiCreatedResponse({ type: MessageDto })
  addMessage(
    @CurrentPrincipal() principal: Principal,
    @RecordId(CONVERSATION_NOT_FOUND) id: number,
    @Body() body: CreateMessageDto,
  ): Promise<MessageDto> {
    return this.conversations.addMessage(principal, id, body);
  }

  @Get(':id/messages')
  @Auth({ permission: 'marketingconversations:read' })
  @ApiOperation({ summary: "A conversation's messages, oldest first" })
  @ApiRecordId('conversation')
  @ApiOkResponse({ type: MessagePageDto })
  listMessages(
    @CurrentPrincipal() principal: Principal,
    @RecordId(CONVERSATION_NOT_FOUND) id: number,
    @Query() query: PageQueryDto,
  ): Promise<Page<MessageDto>> {
    return this.conversations.listMessages(principal, id, query);
  }
}
