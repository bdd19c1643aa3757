import { Module } from '@nestjs/common';
import { Feature } from '../../platform/common/feature/feature';
import { CreateMarketingConversations1763700500000 } from './migrations/1763700500000-CreateMarketingConversations';
import { MarketingConversation } from './conversation.entity';
import { MarketingMessage } from './message.entity';
import { MarketingConversationsController } from './marketing-conversations.controller';
import { MarketingConversationsService } from './marketing-conversations.service';

/**
 * /v1/marketingconversations: conversations with customers and their messages, per company. Listed in
 * src/features.ts; its tables and migrations are the ones named here.
 */
@Feature({
  entities: [MarketingConversation, MarketingMessage],
  migrations: [CreateMarketingConversations1763700500000],
})
@Module({
  controllers: [MarketingConversationsController],
  providers: [MarketingConversationsService],
})
export class MarketingConversationsModule {}
