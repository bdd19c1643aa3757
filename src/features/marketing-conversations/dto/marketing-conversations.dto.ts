import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { PageMetaDto } from '../../../platform/common/http/pagination';
import { CONVERSATION_CHANNELS, type ConversationChannel } from '../conversation.entity';
import { MESSAGE_DIRECTIONS, type MessageDirection } from '../message.entity';

// PostgreSQL text cannot hold U+0000; refused here, it would otherwise fail in the database as a 500.
// eslint-disable-next-line no-control-regex -- matching the control character is the point
const NO_NUL = /^[^\u0000]*$/;
const NOT_BLANK = /\S/;

export class CreateConversationDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Spring sale follow-up' })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'subject must not be blank' })
  @Matches(NO_NUL, { message: 'subject must not contain NUL characters' })
  subject: string;

  @ApiProperty({ enum: CONVERSATION_CHANNELS, example: 'email' })
  @IsIn(CONVERSATION_CHANNELS)
  channel: ConversationChannel;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    nullable: true,
    type: String,
    example: 'crm-4711',
    description: "The customer in the caller's own system (CRM id, e-mail, phone); stored as given",
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @Matches(NO_NUL, { message: 'customer_ref must not contain NUL characters' })
  customer_ref?: string | null;
}

export class ConversationDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 12 })
  id: number;

  @ApiProperty()
  subject: string;

  @ApiProperty({ enum: CONVERSATION_CHANNELS })
  channel: ConversationChannel;

  @ApiProperty({ nullable: true, type: String })
  customer_ref: string | null;

  @ApiProperty({ nullable: true, type: 'integer', description: 'The employee who opened it; null once deleted' })
  created_by: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_message_at: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, example: 0 })
  message_count: number;
}

export class ConversationPageDto extends PageMetaDto {
  @ApiProperty({ type: [ConversationDto], description: 'Newest first' })
  data: ConversationDto[];
}

export class CreateMessageDto {
  @ApiProperty({ minLength: 1, maxLength: 5000, example: 'Thanks for your order! Here is 10% off the next one.' })
  @IsString()
  @Length(1, 5000)
  @Matches(NOT_BLANK, { message: 'body must not be blank' })
  @Matches(NO_NUL, { message: 'body must not contain NUL characters' })
  body: string;

  @ApiProperty({ enum: MESSAGE_DIRECTIONS, description: 'inbound: from the customer; outbound: to the customer' })
  @IsIn(MESSAGE_DIRECTIONS)
  direction: MessageDirection;
}

export class MessageDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 40 })
  id: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 12 })
  conversation_id: number;

  @ApiProperty({ enum: MESSAGE_DIRECTIONS })
  direction: MessageDirection;

  @ApiProperty()
  body: string;

  @ApiProperty({ nullable: true, type: 'integer', description: 'The employee who recorded it; null once deleted' })
  created_by: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class MessagePageDto extends PageMetaDto {
  @ApiProperty({ type: [MessageDto], description: 'Oldest first' })
  data: MessageDto[];
}
