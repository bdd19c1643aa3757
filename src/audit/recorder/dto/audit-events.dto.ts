import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AUDIT_EVENT_TYPES, type AuditEventType } from '../audit-event';

export const AUDIT_PAGE_MAX = 100;
export const AUDIT_PAGE_DEFAULT = 50;

const ID_DESCRIPTION = 'An employee id (integer), or an API key or session id (UUID), as in `actor.id` / `subject.id`';

/** `GET /v1/auditevents` query: filters and keyset paging. */
export class AuditEventQueryDto {
  @ApiPropertyOptional({
    enum: AUDIT_EVENT_TYPES,
    isArray: true,
    description: 'Only events of these types; repeat the parameter for several (`?type=a&type=b`)',
  })
  @IsOptional()
  // One `?type=` arrives as a string, several as an array.
  @Transform(({ value }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(AUDIT_EVENT_TYPES.length)
  @IsIn(AUDIT_EVENT_TYPES, { each: true, message: `type must be one of ${AUDIT_EVENT_TYPES.join(', ')}` })
  type?: AuditEventType[];

  @ApiPropertyOptional({ description: `Only events done by this actor. ${ID_DESCRIPTION}`, maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  actor_id?: string;

  @ApiPropertyOptional({ description: `Only events done to this subject. ${ID_DESCRIPTION}`, maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  subject_id?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only events at or after this time (ISO 8601)',
    example: '2026-01-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date and time' })
  since?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only events before this time (ISO 8601)',
    example: '2026-02-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date and time' })
  until?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX, default: AUDIT_PAGE_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(AUDIT_PAGE_MAX)
  limit: number = AUDIT_PAGE_DEFAULT;

  @ApiPropertyOptional({
    description: "The previous page's `next_cursor`; the filters must be the same as for that page",
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  cursor?: string;
}

const EVENT_ID = { oneOf: [{ type: 'integer' }, { type: 'string' }] };

export class AuditActorDto {
  @ApiProperty({ enum: ['employee', 'api_key', 'operator', 'anonymous'] })
  kind: string;

  @ApiProperty({
    // `nullable` needs a `type` beside it in OpenAPI 3.0, so null is allowed by the string branch.
    oneOf: [{ type: 'integer' }, { type: 'string', nullable: true }],
    description: 'Employee id (integer) or API key id; null for operator and anonymous',
  })
  id: number | string | null;

  @ApiProperty({ type: String, nullable: true, description: "The employee's (or the API key owner's) e-mail" })
  email: string | null;
}

export interface AuditSubjectDto {
  kind: string;
  id: number | string;
  email: string | null;
}

export class AuditEventDto {
  @ApiProperty({ example: '1024' })
  id: string;

  @ApiProperty({ format: 'date-time', example: '2026-03-01T10:00:00.000Z', description: 'ISO 8601, UTC' })
  occurred_at: string;

  @ApiProperty({ enum: AUDIT_EVENT_TYPES })
  type: AuditEventType;

  @ApiProperty({ type: 'integer' })
  company_id: number;

  @ApiProperty({ type: AuditActorDto })
  actor: AuditActorDto;

  @ApiProperty({
    // Inline rather than a $ref: OpenAPI 3.0 cannot mark a referenced schema nullable.
    type: 'object',
    nullable: true,
    properties: {
      kind: { type: 'string', enum: ['employee', 'api_key', 'session', 'invitation', 'role'] },
      id: { ...EVENT_ID, description: 'Employee id (integer), or the API key, session or invitation id' },
      email: { type: 'string', nullable: true, description: 'The e-mail of the employee concerned' },
    },
    required: ['kind', 'id', 'email'],
    description: 'Whom or what it was done to, when not the actor; null otherwise',
  })
  subject: AuditSubjectDto | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  session_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  ip: string | null;

  @ApiProperty({ type: String, nullable: true, maxLength: 256 })
  user_agent: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Depends on the type: `reason` of login.failed, `before`/`after` of permissions.changed, … Never a ' +
      'password, token, secret, code or hash.',
  })
  details: Record<string, unknown>;
}

export class AuditEventPageDto {
  @ApiProperty({ type: [AuditEventDto], description: 'Newest first' })
  data: AuditEventDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `?cursor=` for the next page; null on the last' })
  next_cursor: string | null;
}
