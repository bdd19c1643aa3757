import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const CONVERSATION_CHANNELS = ['email', 'sms', 'chat'] as const;
export type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];

/** A marketing conversation of one company with one customer, over one channel. */
@Entity({ name: 'marketing_conversation' })
// (company_id, id) is what every lookup filters on, and what messages reference to stay in their company.
@Index('marketing_conversation_company_id_id_key', ['companyId', 'id'], { unique: true })
export class MarketingConversation {
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  // text rather than varchar(n): the DTO bounds the length, and a second, differently counted bound in the
  // database would turn some valid requests into 500s.
  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'varchar', length: 16 })
  channel: ConversationChannel;

  /** The customer in the caller's own system (CRM id, e-mail, phone); opaque to this service. */
  @Column({ name: 'customer_ref', type: 'text', nullable: true })
  customerRef: string | null;

  /** null once the employee who opened it is deleted: the conversation belongs to the company, not to them. */
  @Column({ name: 'created_by_id', type: 'integer', nullable: true })
  createdById: number | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_message_at', type: 'timestamptz', nullable: true })
  lastMessageAt: Date | null;

  @Column({ name: 'message_count', type: 'integer', default: 0 })
  messageCount: number;
}
