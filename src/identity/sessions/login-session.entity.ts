import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type SessionEndReason =
  | 'logout'
  | 'revoked'
  | 'admin_revoked'
  | 'refresh_reuse'
  | 'membership_removed'
  | 'password_changed'
  | 'password_reset'
  | 'mfa_enabled'
  | 'backchannel_logout'
  | 'sso_enforced'
  | 'ip_not_allowed'
  | 'idle';

/** How the person signed in: docs/contract.md, sessions list `method`. */
export type LoginMethod = 'password' | 'sso' | 'passkey';
export const LOGIN_METHODS: readonly LoginMethod[] = ['password', 'sso', 'passkey'];

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

  @Column({ type: 'varchar', length: 16 })
  method: LoginMethod;

  /**
   * When the person last proved who they are (the login, or a reauthentication): step-up actions need it within
   * 15 minutes. A refresh or a company switch does not move it.
   */
  @Column({ name: 'proven_at', type: 'timestamptz' })
  provenAt: Date;

  /** A login through a company's provider: its issuer, the person's `sub` and the provider session's `sid`. */
  @Column({ name: 'sso_issuer', type: 'varchar', length: 512, nullable: true })
  ssoIssuer?: string | null;

  @Column({ name: 'sso_sub', type: 'varchar', length: 255, nullable: true })
  ssoSub?: string | null;

  @Column({ name: 'sso_sid', type: 'varchar', length: 255, nullable: true })
  ssoSid?: string | null;

  /**
   * Whether the person proved a second factor at login (TOTP, a passkey, a provider): a company requiring one
   * restricts a session without it to enrolling one (docs/contract.md "Company policies and roles").
   */
  @Column({ name: 'second_factor', type: 'boolean', default: false })
  secondFactor?: boolean;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @Column({ name: 'end_reason', type: 'varchar', length: 32, nullable: true })
  endReason: SessionEndReason | null;
}
