import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A WebAuthn challenge, kept in the database so that the instance that finishes a ceremony need not be the one
 * that started it; deleted when used (single use) and refused after `expires_at` (5 minutes).
 */
@Entity({ name: 'webauthn_challenge' })
export class WebauthnChallenge {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'varchar', length: 128 })
  challenge: string;

  /** `registration`: adding a passkey (bound to its account); `assertion`: a sign-in or a reauthentication. */
  @Column({ type: 'varchar', length: 16 })
  purpose: 'registration' | 'assertion';

  @Column({ name: 'employee_id', type: 'integer', nullable: true })
  employeeId: number | null;

  @Index()
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
