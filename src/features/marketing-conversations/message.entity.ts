import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

/** One message of a marketing conversation: from the customer (inbound) or to the customer (outbound). */
@Entity({ name: 'marketing_message' })
@Index('marketing_message_conversation_id_id_idx', ['conversationId', 'id'])
export class MarketingMessage {
  /** Also the order of a conversation's messages: timestamps can tie, the identity never does. */
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'BY DEFAULT' })
  id: number;

  /**
   * Repeated from the conversation so that the foreign key (company_id, conversation_id) makes a message of
   * another company's conversation impossible in the database itself, whatever a query forgets.
   */
  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ name: 'conversation_id', type: 'integer' })
  conversationId: number;

  @Column({ type: 'varchar', length: 16 })
  direction: MessageDirection;

  @Column({ type: 'text' })
  body: string;

  @Column({ name: 'created_by_id', type: 'integer', nullable: true })
  createdById: number | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
