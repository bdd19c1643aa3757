import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { PageMetaDto } from '../../../platform/common/http/pagination';

export class CreateEventStreamDto {
  @ApiProperty({
    example: 'https://siem.example.com/hooks/staff-auth',
    maxLength: 2048,
    description: 'http or https, resolving to public addresses only',
  })
  @IsString()
  @Length(1, 2048)
  url: string;
}

export class EventStreamDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  url: string;

  @ApiProperty({
    enum: ['active', 'paused'],
    description: 'paused: deliveries failed for 24 hours; nothing more is sent or queued',
  })
  state: 'active' | 'paused';

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'First failure of the current run' })
  failing_since: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'The last failure, briefly (never the receiver body)' })
  last_error: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  paused_at: string | null;
}

export class CreatedEventStreamDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  url: string;

  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The Standard Webhooks signing secret. Shown only in this response.',
  })
  secret: string;
}

export class EventStreamPageDto extends PageMetaDto {
  @ApiProperty({ type: [EventStreamDto] })
  data: EventStreamDto[];
}

export class EventStreamDeliveryDto {
  @ApiProperty({ example: '912' })
  id: string;

  @ApiProperty({ example: '4711', description: 'The security event (its `id` in GET /v1/auditevents)' })
  event_id: string;

  @ApiProperty({ example: 'evt_4711_1f0c2a9b', description: 'The `webhook-id` header: the same on every attempt' })
  webhook_id: string;

  @ApiProperty({ format: 'date-time' })
  attempted_at: string;

  @ApiProperty({ enum: ['delivered', 'failed'] })
  outcome: 'delivered' | 'failed';

  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status; null when none came" })
  status: number | null;

  @ApiProperty({ nullable: true, type: String, example: 'HTTP 503', description: 'Why it failed, briefly' })
  error: string | null;

  @ApiProperty({ type: 'integer', minimum: 0 })
  duration_ms: number;
}

export class EventStreamDeliveryPageDto extends PageMetaDto {
  @ApiProperty({ type: [EventStreamDeliveryDto], description: 'Newest first; the last 1,000 attempts are kept' })
  data: EventStreamDeliveryDto[];
}
