import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * What a company's IT department set for its whole company (docs/contract.md "Company policies and roles"). A
 * company without a row has the defaults of {@link DEFAULT_POLICY}; `policy:reset` deletes the row.
 */
@Entity({ name: 'company_policy' })
export class CompanyPolicy {
  @PrimaryColumn({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ name: 'mfa_required', type: 'boolean' })
  mfaRequired: boolean;

  @Column({ name: 'session_days', type: 'smallint' })
  sessionDays: number;

  @Column({ name: 'idle_timeout_minutes', type: 'integer', nullable: true })
  idleTimeoutMinutes: number | null;

  /** Normalised CIDRs (network address / prefix); empty: anywhere. */
  @Column({ name: 'ip_allowlist', type: 'text', array: true })
  ipAllowlist: string[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
