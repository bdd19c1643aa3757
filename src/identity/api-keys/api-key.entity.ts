import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Grant } from '../../access/permissions/permission';

/** A long-lived `key:secret` credential of one employee in one company, with at most the owner's permissions. */
@Entity({ name: 'api_key' })
export class ApiKey {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  /** The public part before the colon; the lookup key. */
  @Column({ name: 'key_id', type: 'varchar', length: 40, unique: true })
  keyId: string;

  /** SHA-256 of the secret part: it is 256 random bits, so a slow hash would add nothing. */
  @Column({ name: 'secret_hash', type: 'char', length: 64, select: false })
  secretHash: string;

  @Column({ name: 'employee_id', type: 'integer' })
  employeeId: number;

  @Index()
  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'text', array: true })
  permissions: Grant[];

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
