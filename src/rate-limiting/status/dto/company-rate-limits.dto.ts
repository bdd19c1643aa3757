import { ApiProperty } from '@nestjs/swagger';

export class CompanyBucketDto {
  @ApiProperty({ example: 'GET' })
  method: string;

  @ApiProperty({ example: 'products' })
  group: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "The table's capacity (RATE_LIMIT_SCALE applied)",
    example: 30,
  })
  capacity: number;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "What the company's credentials get: the capacity, or a company-wide enforced override's",
    example: 30,
  })
  effective_capacity: number;

  @ApiProperty({ type: 'integer', enum: [3] })
  period_seconds: number;
}

export class CompanyOverrideDto {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'null: every credential of the company' })
  api_key_id: string | null;

  @ApiProperty({ description: 'A method, or * for all', example: 'GET' })
  method: string;

  @ApiProperty({ description: 'A group, or * for all', example: 'products' })
  group: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10000, example: 100 })
  limit: number;

  @ApiProperty({ enum: ['enforce', 'shadow'] })
  mode: 'enforce' | 'shadow';

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at: string | null;
}

export class CompanyQuotaDto {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'null: all the company’s credentials' })
  api_key_id: string | null;

  @ApiProperty({ enum: ['hour', 'day'], description: 'The fixed window, aligned to UTC' })
  per: 'hour' | 'day';

  @ApiProperty({ type: 'integer', minimum: 1, example: 100000 })
  limit: number;
}

export class LimitedCredentialDto {
  @ApiProperty({ enum: ['jwt', 'api_key'] })
  kind: 'jwt' | 'api_key';

  @ApiProperty({ description: "The login session's id for a JWT, the API key's id for a key" })
  credential_id: string;

  @ApiProperty({
    type: 'object',
    required: ['id', 'email'],
    properties: { id: { type: 'integer' }, email: { type: 'string' } },
    description: 'Whose credential it is (for an API key: its owner)',
  })
  employee: { id: number; email: string };

  @ApiProperty({ example: 'GET' })
  method: string;

  @ApiProperty({ example: 'products' })
  group: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Requests refused with 429 in the window' })
  refused: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Requests a shadow override would have refused (admitted)' })
  shadow_limited: number;

  @ApiProperty({ type: String, format: 'date-time' })
  first_at: string;

  @ApiProperty({ type: String, format: 'date-time' })
  last_at: string;
}

export class CompanyRateLimitsDto {
  @ApiProperty({ type: [CompanyBucketDto], description: 'Every counted method × group' })
  limits: CompanyBucketDto[];

  @ApiProperty({ type: [CompanyOverrideDto], description: "The operator's live overrides for this company" })
  overrides: CompanyOverrideDto[];

  @ApiProperty({ type: [CompanyQuotaDto], description: "The operator's quotas for this company and its API keys" })
  quotas: CompanyQuotaDto[];

  @ApiProperty({
    type: [LimitedCredentialDto],
    description:
      "The company's credentials refused in the last hour by the instance that answers (each instance keeps its " +
      'own decisions, in bounded memory), most recently limited first',
  })
  limited: LimitedCredentialDto[];

  @ApiProperty({ type: 'integer', enum: [3600], description: 'How far back `limited` looks' })
  window_seconds: number;
}
