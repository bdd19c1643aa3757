import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An operator's override of the rate-limit table (docs/contract.md, "Rate limits a client can plan with"): the
 * capacity of one company's credentials, or of one API key's, for a method and group (`*` for any).
 */
@Entity({ name: 'rate_limit_override' })
export class RateLimitOverride {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  /** `null`: every credential of the company. */
  @Column({ name: 'api_key_id', type: 'uuid', nullable: true })
  apiKeyId: string | null;

  /** An HTTP method in capitals, or `*`. */
  @Column({ type: 'text' })
  method: string;

  /** An API group, or `*`. `group` is an SQL keyword, hence the column's name. */
  @Column({ name: 'group_name', type: 'text' })
  group: string;

  @Column({ type: 'integer' })
  capacity: number;

  @Column({ type: 'text' })
  mode: 'enforce' | 'shadow';

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
