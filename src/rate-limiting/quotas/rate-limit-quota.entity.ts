import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The long windows a quota counts over, aligned to UTC (docs/contract.md, "Quotas"). */
export const QUOTA_PERIODS = ['hour', 'day'] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

/**
 * An operator's quota (docs/contract.md, "Beyond the bucket": quotas): at most `limit` counted requests of one
 * company's credentials, or of one API key's, per UTC hour or day, on top of the buckets.
 */
@Entity({ name: 'rate_limit_quota' })
export class RateLimitQuota {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  /** `null`: every credential of the company together. */
  @Column({ name: 'api_key_id', type: 'uuid', nullable: true })
  apiKeyId: string | null;

  @Column({ type: 'text' })
  per: QuotaPeriod;

  /** `limit` is an SQL keyword, hence the column's name. */
  @Column({ name: 'request_limit', type: 'integer' })
  limit: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
