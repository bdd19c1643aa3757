import { ApiProperty } from '@nestjs/swagger';
import { RateLimitQuotaStateDto } from './rate-limit-quota-state.dto';

/** An operator's override of a bucket's capacity (docs/contract.md, `npm run cli -- ratelimit:set`). */
export interface RateLimitOverride {
  mode: 'enforce' | 'shadow';
  expires_at: string | null;
}

export class RouteCostDto {
  @ApiProperty({ description: 'The route, as the API reference names it', example: '/v1/reports/export' })
  path: string;

  @ApiProperty({
    type: 'integer',
    minimum: 2,
    description: 'Slots of the bucket one request of this route takes (`@RateLimit({ cost })`; others take 1)',
    example: 5,
  })
  cost: number;
}

export class RateLimitStateDto {
  @ApiProperty({ description: 'The method whose bucket this is', example: 'GET' })
  method: string;

  @ApiProperty({ description: "The API group (X-Rate-Limit-Identifier's third part)", example: 'products' })
  group: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'Requests admitted at once, drained as many per period (X-Rate-Limit-Limit, RateLimit-Policy q)',
    example: 30,
  })
  capacity: number;

  @ApiProperty({ type: 'integer', enum: [3], description: 'Seconds in which a full bucket drains' })
  period_seconds: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: "Requests this caller's bucket would admit at once right now (X-Rate-Limit-Remaining)",
    example: 30,
  })
  remaining: number;

  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['mode', 'expires_at'],
    properties: {
      mode: { type: 'string', enum: ['enforce', 'shadow'] },
      expires_at: { type: 'string', format: 'date-time', nullable: true },
    },
    description: "An operator's override of the capacity; null when the table's capacity applies",
    example: null,
  })
  override: RateLimitOverride | null;

  @ApiProperty({
    type: [RouteCostDto],
    required: false,
    description:
      'The routes of this method × group whose requests take more than one slot of the bucket; absent when every ' +
      "route takes one (all routes of the source's table)",
  })
  costs?: RouteCostDto[];
}

export class RateLimitListDto {
  @ApiProperty({ type: [RateLimitStateDto], description: 'One per method × group the credential can call' })
  limits: RateLimitStateDto[];

  @ApiProperty({
    type: [RateLimitQuotaStateDto],
    description: "The operator's quotas that apply to this credential (its company's, its API key's); empty when none",
  })
  quotas: RateLimitQuotaStateDto[];
}
