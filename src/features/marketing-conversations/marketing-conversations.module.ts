import { Module } from '@nestjs/common';
import { MarketingConversationsController } from './marketing-conversations.controller';
import { MarketingConversationsService } from './marketing-conversations.service';

/** /v1/marketingconversations: conversations with customers and their messages, per company. */
@Module({
  controllers: [MarketingConversationsController],
  providers: [MarketingConversationsService],
})
export class MarketingConversationsModule {}
