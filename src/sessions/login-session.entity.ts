import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type SessionEndReason =
  | 'logout'
  | 'revoked'
  | 'admin_revoked'
  | 'refresh_reuse'
  | 'membership_removed'
  | 'password_changed'
  | 'password_reset'
  | 'mfa_enabled';

/** One login of one employee: it spans company switches and refreshes, and ends at logout or revocation. */
@Entity({ name: 'login_session' })
export class LoginSession {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Index()
  @Column({ name: 'employee_id', type: 'integer' })
  employeeId: number;

  /** The working company: the one the session's current token is bound to. */
  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  /** The login time, from which the 30-day maximum age counts. */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz' })
  lastUsedAt: Date;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @Column({ name: 'end_reason', type: 'varchar', length: 32, nullable: true })
  endReason: SessionEndReason | null;
}
