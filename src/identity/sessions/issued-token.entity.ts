import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type TokenRevokeReason =
  | 'logout'
  | 'company_switch'
  | 'refresh'
  | 'session_revoked'
  | 'membership_removed'
  | 'password_changed'
  | 'ip_not_allowed'
  | 'idle';

/**
 * Every JWT the service signed, with its refresh token, both kept only as SHA-256 digests. A JWT whose digest
 * is not here was never issued (or was altered) and is refused even when its signature verifies.
 */
@Entity({ name: 'issued_token' })
export class IssuedToken {
  /** The JWT's `jti`. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Index()
  @Column({ name: 'session_id', type: 'uuid' })
  sessionId: string;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ name: 'token_hash', type: 'char', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'refresh_hash', type: 'char', length: 64, unique: true })
  refreshHash: string;

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'revoke_reason', type: 'varchar', length: 32, nullable: true })
  revokeReason: TokenRevokeReason | null;

  /** When its refresh token was spent; a second use after the grace period ends the whole session. */
  @Column({ name: 'refresh_used_at', type: 'timestamptz', nullable: true })
  refreshUsedAt: Date | null;
}
