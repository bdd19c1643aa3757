import { ApiProperty } from '@nestjs/swagger';

/** One operator quota that applies to the caller (docs/contract.md, "Beyond the bucket": quotas). */
export class RateLimitQuotaStateDto {
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    description: "null: the company's quota, shared by all its credentials; else this API key's own",
  })
  api_key_id: string | null;

  @ApiProperty({ enum: ['hour', 'day'], description: "The fixed window, aligned to UTC (the IETF policy's name)" })
  per: 'hour' | 'day';

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "Requests per window (RateLimit-Policy q); while Redis is away, this instance's share of it",
    example: 100000,
  })
  limit: number;

  @ApiProperty({ type: 'integer', enum: [3600, 86400], description: 'The window in seconds (RateLimit-Policy w)' })
  window_seconds: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Requests left in this UTC hour or day (RateLimit r)',
    example: 99998,
  })
  remaining: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'When this UTC hour or day ends and the count restarts',
  })
  resets_at: string;
}
