import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One WebAuthn credential (a passkey) of one account: its public key and signature counter, never a secret. */
@Entity({ name: 'passkey' })
export class Passkey {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Index()
  @Column({ name: 'employee_id', type: 'integer' })
  employeeId: number;

  /** The authenticator's credential id, base64url, as browsers send it back. */
  @Column({ name: 'credential_id', type: 'varchar', length: 1400, unique: true })
  credentialId: string;

  /** The COSE public key. */
  @Column({ name: 'public_key', type: 'bytea' })
  publicKey: Buffer;

  /** The last signature counter seen; a lower one than stored means a cloned authenticator (WebAuthn §6.1.1). */
  @Column({ type: 'bigint' })
  counter: string;

  @Column({ type: 'jsonb' })
  transports: string[];

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
