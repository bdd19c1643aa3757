import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'employee' })
export class Employee {
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'BY DEFAULT' })
  id: number;

  /** Stored lower-cased; a unique index on lower(email) makes e-mails unique case-insensitively. */
  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** argon2id PHC string; never serialized to a response or a log. */
  @Column({ name: 'password_hash', type: 'text', select: false })
  passwordHash: string;

  /** The TOTP secret, AES-256-GCM encrypted (src/mfa); set at enrolment, on once `totpEnabledAt` is set. */
  @Column({ name: 'totp_secret', type: 'text', nullable: true, select: false })
  totpSecret?: string | null;

  @Column({ name: 'totp_enabled_at', type: 'timestamptz', nullable: true })
  totpEnabledAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
