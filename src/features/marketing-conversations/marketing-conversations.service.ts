import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '../../access/rules/principal';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { type Page, type PageQueryDto, toPage } from '../../platform/common/http/pagination';
import { MarketingConversation } from './conversation.entity';
import type {
  ConversationDto,
  CreateConversationDto,
  CreateMessageDto,
  MessageDto,
} from './dto/marketing-conversations.dto';
import { MarketingMessage } from './message.entity';

export const CONVERSATION_NOT_FOUND = 'No such marketing conversation.';

/**
 * Marketing conversations of one company. Every query names the caller's company, so a record of another
 * company is indistinguishable from one that does not exist (404, never 403).
 */
@Injectable()
export class MarketingConversationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, input: CreateConversationDto): Promise<ConversationDto> {
    const repository = this.dataSource.getRepository(MarketingConversation);
    const conversation = repository.create({
      companyId: principal.companyId,
      subject: input.subject.trim(),
      channel: input.channel,
      customerRef: input.customer_ref ?? null,
      createdById: principal.employeeId,
      createdAt: this.clock.now(),
      lastMessageAt: null,
      messageCount: 0,
    });
    await repository.insert(conversation);
    return toConversationDto(conversation);
  }

  async list(principal: Principal, query: PageQueryDto): Promise<Page<ConversationDto>> {
    const [rows, total] = await this.dataSource.getRepository(MarketingConversation).findAndCount({
      where: { companyId: principal.companyId },
      order: { id: 'DESC' },
      skip: query.offset,
      take: query.per_page,
    });
    return toPage(rows.map(toConversationDto), total, query);
  }

  async get(principal: Principal, id: number): Promise<ConversationDto> {
    return toConversationDto(await this.find(principal, id));
  }

  /**
   * Counting the message on the conversation row first both proves the conversation is the caller's company's
   * and locks it, so concurrent messages keep message_count exact.
   */
  async addMessage(principal: Principal, conversationId: number, input: CreateMessageDto): Promise<MessageDto> {
    const now = this.clock.now();
    return this.dataSource.transaction(async (manager) => {
      const counted = await manager
        .createQueryBuilder()
        .update(MarketingConversation)
        .set({ messageCount: () => 'message_count + 1', lastMessageAt: now })
        .where('id = :id AND company_id = :companyId', { id: conversationId, companyId: principal.companyId })
        .execute();
      if (counted.affected !== 1) throw ApiError.notFound(CONVERSATION_NOT_FOUND);
      const message = manager.create(MarketingMessage, {
        companyId: principal.companyId,
        conversationId,
        direction: input.direction,
        body: input.body,
        createdById: principal.employeeId,
        createdAt: now,
      });
      await manager.insert(MarketingMessage, message);
      return toMessageDto(message);
    });
  }

  async listMessages(principal: Principal, conversationId: number, query: PageQueryDto): Promise<Page<MessageDto>> {
    await this.find(principal, conversationId);
    const [rows, total] = await this.dataSource.getRepository(MarketingMessage).findAndCount({
      where: { companyId: principal.companyId, conversationId },
      order: { id: 'ASC' },
      skip: query.offset,
      take: query.per_page,
    });
    return toPage(rows.map(toMessageDto), total, query);
  }

  private async find(principal: Principal, id: number): Promise<MarketingConversation> {
    const conversation = await this.dataSource
      .getRepository(MarketingConversation)
      .findOneBy({ id, companyId: principal.companyId });
    if (!conversation) throw ApiError.notFound(CONVERSATION_NOT_FOUND);
    return conversation;
  }
}

function toConversationDto(conversation: MarketingConversation): ConversationDto {
  return {
    id: conversation.id,
    subject: conversation.subject,
    channel: conversation.channel,
    customer_ref: conversation.customerRef,
    created_by: conversation.createdById,
    created_at: conversation.createdAt.toISOString(),
    last_message_at: conversation.lastMessageAt?.toISOString() ?? null,
    message_count: conversation.messageCount,
  };
}

function toMessageDto(message: MarketingMessage): MessageDto {
  return {
    id: message.id,
    conversation_id: message.conversationId,
    direction: message.direction,
    body: message.body,
    created_by: message.createdById,
    created_at: message.createdAt.toISOString(),
  };
}
